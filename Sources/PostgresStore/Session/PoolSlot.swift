import EventLoop

/// One place of `PostgresSessionStore`'s pool: the connection it has now, if any, and when to
/// make the next one (its own `Reconnection`, so each place reconnects at its own pace and a
/// failed attempt of one never holds back another). Loop thread only; not Sendable.
final class PoolSlot {
    var reconnection: Reconnection
    /// The connection up now; nil while there is none.
    var link: PostgresLink?
    var retryTimer: LoopTimer?

    init(backoff: ReconnectBackoff) {
        reconnection = Reconnection(backoff: backoff)
    }
}

@available(*, unavailable, message: "a slot belongs to the loop thread, as its connection does")
extension PoolSlot: Sendable {}

/// A body waiting for one of the pool's connections: what it is given (a held link, or none
/// when none is left up) waits here until its task runs again.
final class PoolWaiter {
    var continuation: CheckedContinuation<Void, Never>?
    private(set) var link: PostgresLink?

    func give(_ link: PostgresLink?) {
        self.link = link
        continuation?.resume()
        continuation = nil
    }
}

@available(*, unavailable, message: "a waiter belongs to the loop thread, as the pool does")
extension PoolWaiter: Sendable {}
