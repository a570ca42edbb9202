import EventLoop
@testable import HTTP
import Testing

/// The rules of `ConnectionWants`, each from plain facts: no socket, no loop, no clock.
@Suite struct ConnectionWantsTests {
    static let t0 = Instant(nanoseconds: 1_000_000_000)

    static func facts(_ state: HTTPConnection.State, _ change: (inout ConnectionWants.Facts) -> Void = { _ in })
        -> ConnectionWants.Facts {
        var facts = ConnectionWants.Facts(
            state: state, pendingOutput: false, backlogFull: false, hasPendingInput: false,
            interest: .readable, transportNeeds: [], transportEstablished: true, requestBegun: false,
            bodyDue: nil, requestStart: t0, lastWriteProgress: t0, now: t0 + .seconds(1))
        change(&facts)
        return facts
    }

    let config = HTTPServerConfiguration()

    @Test func aReadingConnectionReadsUntilItsAnswersPassTheBoundOrInputIsKept() {
        #expect(ConnectionWants.interest(Self.facts(.reading)) == .readable)
        #expect(ConnectionWants.interest(Self.facts(.reading) { $0.backlogFull = true }) == [])
        #expect(ConnectionWants.interest(Self.facts(.reading) { $0.hasPendingInput = true }) == [])
        #expect(ConnectionWants.interest(Self.facts(.reading) { $0.backlogFull = true; $0.pendingOutput = true })
            == .writable)
    }

    @Test func aHeldAnswerKeepsTheInterestButAParkedOneWatchesOnlyForTheClientGoingAway() {
        #expect(ConnectionWants.interest(Self.facts(.held)) == .readable)
        #expect(ConnectionWants.interest(Self.facts(.held) { $0.interest = [.readable, .writable] }) == .readable)
        #expect(ConnectionWants.interest(Self.facts(.parked)) == .peerClosed)
        #expect(ConnectionWants.interest(Self.facts(.streaming) { $0.pendingOutput = true }) == [.peerClosed, .writable])
    }

    @Test func nothingChangesWhileTheHandlerRunsOrOnceClosed() {
        #expect(ConnectionWants.interest(Self.facts(.handling)) == nil)
        #expect(ConnectionWants.interest(Self.facts(.closed)) == nil)
    }

    @Test func theTransportsOwnNeedsAreAdded() {
        #expect(ConnectionWants.interest(Self.facts(.closingAfterWrite(linger: false)) { $0.transportNeeds = .readable })
            == .readable)
        #expect(ConnectionWants.interest(Self.facts(.lingering)) == .readable)
    }

    @Test func theDeadlineFollowsWhatIsBeingRead() {
        let t0 = Self.t0
        let idle = ConnectionWants.deadline(Self.facts(.reading), config)
        #expect(idle.0 == .idle && idle.1 == t0 + .seconds(1) + config.idleTimeout)
        let handshake = ConnectionWants.deadline(Self.facts(.reading) { $0.transportEstablished = false }, config)
        #expect(handshake.0 == .handshake && handshake.1 == t0 + config.headerTimeout)
        let header = ConnectionWants.deadline(Self.facts(.reading) { $0.requestBegun = true }, config)
        #expect(header.0 == .header && header.1 == t0 + config.headerTimeout)
        let body = ConnectionWants.deadline(Self.facts(.reading) { $0.requestBegun = true; $0.bodyDue = t0 + .seconds(3) },
                                            config)
        #expect(body.0 == .body && body.1 == t0 + .seconds(3))
        let linger = ConnectionWants.deadline(Self.facts(.lingering), config)
        #expect(linger.0 == .linger && linger.1 == t0 + config.lingerTimeout)
        #expect(ConnectionWants.deadline(Self.facts(.parked), config).1 == nil)
    }

    @Test func unsentOutputBringsTheWriteDeadlineWhenItIsEarlier() {
        let t0 = Self.t0
        let parked = ConnectionWants.deadline(Self.facts(.parked) { $0.pendingOutput = true }, config)
        #expect(parked.0 == .write && parked.1 == t0 + config.writeTimeout)
        // A header deadline 10 s away comes before a write deadline 30 s away.
        let header = ConnectionWants.deadline(Self.facts(.reading) { $0.requestBegun = true; $0.pendingOutput = true },
                                              config)
        #expect(header.0 == .header)
    }

    @Test func aSlowRequestIsRefusedWith408AndEveryOtherDeadlineCloses() {
        #expect(ConnectionWants.expiry(of: .header) == .refuse(reason: "headers too slow"))
        #expect(ConnectionWants.expiry(of: .body) == .refuse(reason: "body too slow"))
        for kind: ConnectionWants.DeadlineKind in [.idle, .handshake, .write, .linger] {
            #expect(ConnectionWants.expiry(of: kind) == .close)
        }
    }
}
