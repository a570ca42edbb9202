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

/// What an epoll event does, from plain facts.
@Suite struct ConnectionEventStepTests {
    static func step(_ events: IOEvents, _ state: HTTPConnection.State, pending: Bool = false,
                     buffered: Bool = false, needs: Interest = []) -> ConnectionWants.Step {
        ConnectionWants.step(on: events, in: state, hasPendingInput: pending, transportHasInput: buffered,
                             transportNeeds: needs)
    }

    @Test func queuedAnswersAreWrittenOnAWritableEventAHangUpOrWhatTheTransportWaitsFor() {
        #expect(ConnectionWants.flushes(on: .writable, hasOutput: true, transportNeeds: []))
        #expect(ConnectionWants.flushes(on: .hangup, hasOutput: true, transportNeeds: []))
        #expect(ConnectionWants.flushes(on: .readable, hasOutput: true, transportNeeds: .readable))
        #expect(!ConnectionWants.flushes(on: .readable, hasOutput: true, transportNeeds: []))
        #expect(!ConnectionWants.flushes(on: .writable, hasOutput: false, transportNeeds: []))
    }

    @Test func aReadingConnectionReadsOnInputKeptInputOrAWriteThatTheTransportNeeded() {
        #expect(Self.step(.readable, .reading) == .read)
        #expect(Self.step(.hangup, .reading) == .read)
        // The writable event that drained the answers takes up the kept input.
        #expect(Self.step(.writable, .reading, pending: true) == .read)
        #expect(Self.step(.writable, .reading, buffered: true) == .read)
        #expect(Self.step(.writable, .reading, needs: .writable) == .read)
        #expect(Self.step(.writable, .reading) == .settle)
    }

    @Test func aWaitingConnectionClosesWhenTheClientGoesAwayAndReadsNothingMeanwhile() {
        for state: HTTPConnection.State in [.parked, .held, .streaming] {
            #expect(Self.step(.readable, state) == .settle)
            #expect(Self.step(.peerClosed, state) == .close)
            #expect(Self.step(.error, state) == .close)
        }
    }

    @Test func aClosingConnectionDrainsWhileLingeringAndNothingHappensWhileTheHandlerRuns() {
        #expect(Self.step(.readable, .lingering) == .drain)
        #expect(Self.step(.writable, .closingAfterWrite(linger: true)) == .settle)
        #expect(Self.step(.hangup, .closingAfterWrite(linger: false)) == .close)
        #expect(Self.step(.readable, .handling) == .none)
        #expect(Self.step(.readable, .closed) == .none)
    }
}
