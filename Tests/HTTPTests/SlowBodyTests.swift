#if canImport(Glibc)
import Glibc
import HTTPTestSupport
#endif
import EventLoop
import Testing
@testable import HTTP

/// The attack: a body that trickles in, each byte well within the body timeout. The whole
/// body is bounded; a slow but steady one still arrives.
@Suite struct SlowBodyTests {
    static let head = "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n"

    @Test func aBodyTrickledAByteASecondGets408OnceTheBodyTimeoutIsSpent() throws {
        let harness = try ServerHarness { $0.bodyTimeout = .seconds(5) }
        let client = harness.connect()
        client.send(Self.head)
        harness.pump(rounds: 3)
        var seconds = 0
        while seconds < 60 && !client.hasCompleteResponse {
            client.send("x")
            harness.pump(rounds: 2)
            harness.advance(by: .seconds(1))
            seconds += 1
        }
        let response = try #require(harness.response(client))
        #expect(response.status == 408)
        #expect(response.header("Connection") == "close")
        #expect(harness.handler.seen.isEmpty)
        // Due 5 s after the head plus 1/1024 s for each byte in: at the sixth second.
        #expect(seconds == 5 || seconds == 6)
    }

    @Test func aLongBodyAtASteadyRateAboveTheMinimumIsRead() throws {
        let harness = try ServerHarness {
            $0.bodyTimeout = .seconds(2)
            $0.bodyMinimumRate = 1024
        }
        harness.handler.onRequest = { request, responder in
            responder.respond(.json(200, Array("\(request.body.count)".utf8)))
        }
        let client = harness.connect()
        client.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 30000\r\n\r\n")
        harness.pump(rounds: 3)
        // 1.5 KiB a second for 20 s: ten times the body timeout, above the minimum rate.
        for _ in 0..<20 {
            harness.advance(by: .seconds(1))
            client.send([UInt8](repeating: 0x61, count: 1500))
            harness.pump(rounds: 2)
        }
        let response = try #require(harness.response(client))
        #expect(response.status == 200)
        #expect(response.bodyText == "30000")
    }

    @Test func aBodyThatPausesLongerThanTheBodyTimeoutGets408() throws {
        let harness = try ServerHarness { $0.bodyTimeout = .seconds(5) }
        let client = harness.connect()
        client.send(Self.head + String(repeating: "x", count: 900))
        harness.pump(rounds: 3)
        harness.advance(by: .seconds(4))
        #expect(!client.hasCompleteResponse)
        harness.advance(by: .seconds(2))
        #expect(harness.response(client)?.status == 408)
    }

    @Test func theDeadlineIsTheEarlierOfThePauseAndTheEarnedTotal() {
        let start = Instant(nanoseconds: 0)
        var deadline = BodyDeadline(start: start)
        #expect(deadline.due(pause: .seconds(10), minimumRate: 1024) == start + .seconds(10))
        // 2 KiB in at 1 s: earned 2 s, so the total (12 s) is later than the pause (11 s).
        deadline.record(2048, at: start + .seconds(1))
        #expect(deadline.due(pause: .seconds(10), minimumRate: 1024) == start + .seconds(11))
        // One byte at 9 s: the pause would allow 19 s, the total allows 12 s and a bit.
        deadline.record(1, at: start + .seconds(9))
        let due = deadline.due(pause: .seconds(10), minimumRate: 1024)
        #expect(due > start + .seconds(12) && due < start + .milliseconds(12_001))
    }
}
