import EventLoop

/// When a request body being read is too slow. Two bounds, the earlier wins:
/// - no pause between bytes longer than the body timeout (a client that stopped);
/// - the whole body in by `start + timeout + received / minimumRate`: every byte earns
///   1/rate of a second, after a grace of one body timeout from the end of the head.
///
/// A pause bound alone lets a client hold a connection forever with one byte every few
/// seconds; a fixed total would cut a large body on a slow link. With the earned time, a
/// trickle is cut after about one timeout, while a body arriving at any rate above the
/// minimum always completes, however long it is: the total is bounded by
/// `timeout + maxBodyBytes / minimumRate` (10 s + 1024 s for 1 MiB at the defaults).
struct BodyDeadline {
    let start: Instant
    private(set) var lastProgress: Instant
    private(set) var received = 0

    init(start: Instant) {
        self.start = start
        lastProgress = start
    }

    mutating func record(_ count: Int, at now: Instant) {
        received += count
        lastProgress = now
    }

    /// `minimumRate` in bytes per second, at least 1.
    func due(pause: TimeSpan, minimumRate: Int) -> Instant {
        let earned = TimeSpan(nanoseconds: Int64(received) * 1_000_000_000 / Int64(max(1, minimumRate)))
        return min(lastProgress + pause, start + pause + earned)
    }
}
