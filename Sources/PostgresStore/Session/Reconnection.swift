import EventLoop

/// When `PostgresSessionStore` connects: a value fed what happened, at what time, that
/// answers what to do; the store carries the answer out on the loop (a connect, a timer).
/// Tested without a socket or a clock of its own (`ReconnectionTests`).
///
/// Up means a connection is open and taken by bodies; anything else refuses them at once.
struct Reconnection {
    enum Phase: Equatable {
        /// Not started, or stopped by the owner: nothing is tried.
        case stopped
        /// A connect is under way (bounded by the connect timeout).
        case connecting
        /// A connection serves, made at `since`.
        case up(since: Instant)
        /// The last attempt failed; the next is due at `until`.
        case waiting(until: Instant)
    }

    enum Action: Equatable {
        case none
        /// Open a connection now.
        case connect
        /// Try again at this instant (a timer).
        case retry(at: Instant)
    }

    let backoff: ReconnectBackoff
    private(set) var phase = Phase.stopped
    /// Failed attempts since the last connection that served for `backoff.cap`.
    private(set) var failures = 0

    init(backoff: ReconnectBackoff) {
        self.backoff = backoff
    }

    var isUp: Bool {
        if case .up = phase { return true }
        return false
    }

    mutating func start() -> Action {
        guard phase == .stopped else { return .none }
        phase = .connecting
        return .connect
    }

    /// A connect ended with a connection; false: it is not wanted (stopped meanwhile), close it.
    mutating func connected(at now: Instant) -> Bool {
        guard phase == .connecting else { return false }
        phase = .up(since: now)
        return true
    }

    mutating func connectFailed(at now: Instant) -> Action {
        guard phase == .connecting else { return .none }
        return waitAfterFailure(now)
    }

    /// The connection that served was lost (or dropped for a fault it showed).
    mutating func lost(at now: Instant) -> Action {
        guard case .up(let since) = phase else { return .none }
        guard now - since >= backoff.cap else { return waitAfterFailure(now) }
        failures = 0
        phase = .connecting
        return .connect
    }

    /// The retry's timer fired.
    mutating func retryDue() -> Action {
        guard case .waiting = phase else { return .none }
        phase = .connecting
        return .connect
    }

    mutating func stop() {
        phase = .stopped
    }

    private mutating func waitAfterFailure(_ now: Instant) -> Action {
        failures += 1
        let due = now + backoff.delay(afterFailures: failures)
        phase = .waiting(until: due)
        return .retry(at: due)
    }
}
