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
