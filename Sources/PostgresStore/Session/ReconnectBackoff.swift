import EventLoop

/// How long `PostgresSessionStore` waits between attempts to connect again: `first` after the
/// first failed attempt, twice as long after each further one, never more than `cap`. With
/// the defaults: 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, then 5 s for as long as the database stays
/// away, so a node finds it within 5 s of its return and costs the database one connection
/// attempt each 5 s meanwhile. Each attempt is bounded by itself too, by the connect timeout
/// (`connect_timeout=`, else `PostgresLimits.connectTimeout`).
///
/// A connection lost after it had served for `cap` or more is tried again at once (a failover,
/// an administrator's kill); one lost sooner goes on with the waits where they were, so a
/// server that takes connections and drops them cannot make the node connect in a loop.
public struct ReconnectBackoff: Sendable, Equatable {
    public var first: TimeSpan
    public var cap: TimeSpan

    public init(first: TimeSpan = .milliseconds(100), cap: TimeSpan = .seconds(5)) {
        precondition(first > .zero && cap >= first, "a backoff waits a while, and its cap is no shorter than its first wait")
        self.first = first
        self.cap = cap
    }

    /// The wait after `failures` failed attempts in a row (1 or more).
    public func delay(afterFailures failures: Int) -> TimeSpan {
        var delay = first
        for _ in 1..<max(1, failures) {
            // Doubling stops at the cap, long before an Int64 could overflow.
            guard delay < cap else { break }
            delay = delay + delay
        }
        return min(delay, cap)
    }
}
