import EventLoop

/// What a connection's state asks of the loop: the epoll interest, the one deadline, and what
/// that deadline does when it comes. Pure: the same facts give the same answer, so every rule
/// is tested without a socket or a loop (`ConnectionWantsTests`); `HTTPConnection.settle` and
/// `timerFired` only gather the facts and carry the answer out.
struct ConnectionWants {
    enum DeadlineKind: Equatable { case idle, handshake, header, body, write, linger }

    /// What a due deadline does.
    enum Expiry: Equatable {
        /// Close without a word (nothing was asked, or the client stopped reading).
        case close
        /// Answer `408` and close: a request was being read.
        case refuse(reason: String)
    }

    /// The facts the rules read, gathered by the connection.
    struct Facts {
        var state: HTTPConnection.State
        /// Answer bytes (or a produced body) wait, and no end-of-turn flush will send them.
        var pendingOutput: Bool
        var backlogFull: Bool
        var hasPendingInput: Bool
        /// The interest the loop has now, and what the transport itself needs.
        var interest: Interest
        var transportNeeds: Interest
        var transportEstablished: Bool
        /// A request's head or body is partly read; the body's own deadline when in the body.
        var requestBegun: Bool
        var bodyDue: Instant?
        /// When the current request began (or the connection was accepted, or lingering began).
        var requestStart: Instant
        var lastWriteProgress: Instant
        /// The server stops and the connection has sent nothing yet: when it closes.
        var firstRequestDue: Instant?
        var now: Instant
    }

    /// The interest to have; nil while the handler runs or once closed (nothing to change).
    static func interest(_ facts: Facts) -> Interest? {
        var wanted: Interest
        switch facts.state {
        case .reading:
            // Kept input is taken up before the socket is read again (`HTTPConnection.handleIO`).
            wanted = facts.backlogFull || facts.hasPendingInput ? [] : .readable
        case .held:
            // Answered before the loop sleeps: a readable event meanwhile waits for that turn.
            wanted = facts.interest.subtracting(.writable)
        case .parked, .streaming:
            wanted = .peerClosed
        case .closingAfterWrite:
            wanted = []
        case .lingering:
            wanted = .readable
        case .handling, .closed:
            return nil
        }
        if facts.pendingOutput { wanted.insert(.writable) }
        return wanted.union(facts.transportNeeds)
    }

    /// The one deadline the state has, and its kind; nil when nothing is timed.
    static func deadline(_ facts: Facts, _ config: HTTPServerConfiguration) -> (DeadlineKind, Instant?) {
        var kind: DeadlineKind
        var due: Instant?
        switch facts.state {
        case .reading:
            if let body = facts.bodyDue {
                (kind, due) = (.body, body)
            } else if facts.requestBegun {
                (kind, due) = (.header, facts.requestStart + config.headerTimeout)
            } else if !facts.transportEstablished {
                // `requestStart` is still the accept time: no request has begun.
                (kind, due) = (.handshake, facts.requestStart + config.headerTimeout)
            } else {
                (kind, due) = (.idle, facts.now + config.idleTimeout)
            }
            // A stopping server's wait for a first request ends sooner than any of these.
            if !facts.requestBegun, let first = facts.firstRequestDue, first < due! { (kind, due) = (.idle, first) }
        case .lingering:
            (kind, due) = (.linger, facts.requestStart + config.lingerTimeout)
        default:
            (kind, due) = (.write, nil)
        }
        if facts.pendingOutput {
            let writeDue = facts.lastWriteProgress + config.writeTimeout
            if due == nil || writeDue < due! { (kind, due) = (.write, writeDue) }
        }
        return (kind, due)
    }

    /// What a deadline of `kind` does when it comes.
    static func expiry(of kind: DeadlineKind) -> Expiry {
        switch kind {
        case .idle, .handshake, .write, .linger: .close
        case .header: .refuse(reason: "headers too slow")
        case .body: .refuse(reason: "body too slow")
        }
    }
}

extension ConnectionWants {
    /// What an epoll event does, after any flush it asks for (`HTTPConnection.handleIO`).
    enum Step: Equatable {
        /// Read and handle requests, then settle.
        case read
        /// Drain the input of a lingering close.
        case drain
        case close
        /// Nothing but settling the interest and deadline.
        case settle
        /// Nothing at all (the handler runs, or the connection is closed).
        case none
    }

    /// Whether `events` first write what is queued: a writable event, or a hang-up or an error
    /// (the write then reports it and closes), or a transport that needs an event of its own
    /// to go on writing (TLS may need a read).
    /// (The transport's facts are asked only when the rule needs them, as before the rules were
    /// pulled out: a TLS transport's answers are not free.)
    static func flushes(on events: IOEvents, hasOutput: Bool, transportNeeds: @autoclosure () -> Interest) -> Bool {
        hasOutput && (events.contains(.writable) || events.contains(.hangup) || events.contains(.error)
                      || !transportNeeds().isEmpty)
    }

    /// What `events` do in `state` (the state after the flush).
    static func step(on events: IOEvents, in state: HTTPConnection.State, hasPendingInput: Bool,
                     transportHasInput: @autoclosure () -> Bool, transportNeeds: @autoclosure () -> Interest) -> Step {
        let failed = events.contains(.hangup) || events.contains(.error)
        switch state {
        case .reading:
            // Input kept while the answers were over the bound is taken up again here, on the
            // writable event that drained them (the loop's doing, not a write's callback). So
            // is input a TLS transport holds, and a read that waited for a writable event.
            if hasPendingInput || events.contains(.readable) || failed || transportHasInput()
                || (events.contains(.writable) && !transportNeeds().isEmpty) {
                return .read
            }
            return .settle
        case .parked, .held, .streaming:
            // (A held answer comes before the loop sleeps: input that came meanwhile waits
            // for it, unread.)
            return events.contains(.peerClosed) || failed ? .close : .settle
        case .lingering:
            return .drain
        case .closingAfterWrite:
            return failed ? .close : .settle
        case .handling, .closed:
            return .none
        }
    }
}
