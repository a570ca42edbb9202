import EventLoop
@testable import PostgresStore
import Testing

/// When the store connects, without a socket: the backoff's numbers (0.1 s doubling to 5 s),
/// a connection lost after serving 5 s tried again at once and one lost sooner waiting on,
/// and nothing tried or kept once stopped.
@Suite struct ReconnectionTests {
    let start = Instant(nanoseconds: 1_000_000_000)

    @Test func theWaitsDoubleFromATenthOfASecondToFiveSeconds() {
        let backoff = ReconnectBackoff()
        let waits = (1...10).map { backoff.delay(afterFailures: $0).milliseconds }
        #expect(waits == [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000])
        #expect(backoff.delay(afterFailures: 1_000_000) == .seconds(5))
    }

    @Test func aStartConnectsAtOnceAndFailedAttemptsAreRetriedAfterTheBackoff() {
        var reconnection = Reconnection(backoff: ReconnectBackoff())
        var actions = [reconnection.start(), reconnection.start()]
        #expect(actions == [.connect, .none])
        var now = start
        var waits: [Int64] = []
        for _ in 0..<8 {
            guard case .retry(let due) = reconnection.connectFailed(at: now) else {
                Issue.record("a failed attempt is not retried")
                return
            }
            waits.append((due - now).milliseconds)
            // Nothing more is tried before the timer.
            actions = [reconnection.connectFailed(at: now), reconnection.lost(at: now), reconnection.retryDue()]
            #expect(actions == [.none, .none, .connect])
            now = due
        }
        #expect(waits == [100, 200, 400, 800, 1600, 3200, 5000, 5000])
        #expect(!reconnection.isUp)
        let kept = reconnection.connected(at: now)
        #expect(kept && reconnection.isUp)
    }

    @Test func aConnectionLostAfterServingFiveSecondsIsReplacedAtOnce() {
        var reconnection = Reconnection(backoff: ReconnectBackoff())
        _ = reconnection.start()
        _ = reconnection.connectFailed(at: start)
        _ = reconnection.retryDue()
        _ = reconnection.connected(at: start)
        let action = reconnection.lost(at: start + .seconds(5))
        #expect(action == .connect)
        #expect(reconnection.failures == 0)
    }

    @Test func aConnectionLostSoonerWaitsOnFromWhereTheBackoffWas() {
        var reconnection = Reconnection(backoff: ReconnectBackoff())
        _ = reconnection.start()
        _ = reconnection.connected(at: start)
        let lostAt = start + .milliseconds(4999)
        let first = reconnection.lost(at: lostAt)
        #expect(first == .retry(at: lostAt + .milliseconds(100)))
        _ = reconnection.retryDue()
        _ = reconnection.connected(at: lostAt)
        let second = reconnection.lost(at: lostAt + .seconds(1))
        #expect(second == .retry(at: lostAt + .seconds(1) + .milliseconds(200)))
    }

    @Test func aStoppedReconnectionTriesNothingAndKeepsNoConnection() {
        var reconnection = Reconnection(backoff: ReconnectBackoff())
        _ = reconnection.start()
        reconnection.stop()
        let kept = reconnection.connected(at: start)
        #expect(!kept)
        let actions = [reconnection.connectFailed(at: start), reconnection.retryDue(), reconnection.lost(at: start), reconnection.start()]
        #expect(actions == [.none, .none, .none, .connect])
    }

    @Test func aLossWhileNothingServesChangesNothing() {
        var reconnection = Reconnection(backoff: ReconnectBackoff())
        _ = reconnection.start()
        let action = reconnection.lost(at: start)
        #expect(action == .none)
        #expect(reconnection.phase == .connecting)
    }
}
