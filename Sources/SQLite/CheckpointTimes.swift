/// How long WAL checkpoints took, as a histogram's counts (`/metrics`:
/// `relaydeck_store_checkpoint_duration_seconds`), and how many failed. A value: the
/// `Checkpointer` keeps one under its lock and hands out copies.
public struct CheckpointTimes: Sendable, Equatable {
    /// The buckets' upper bounds in microseconds: 1 ms to 10 s. A checkpoint copies pages
    /// and waits for `fsync`: a few milliseconds on a quiet SSD, seconds on a busy disk.
    public static let boundsMicros = [1_000, 5_000, 25_000, 100_000, 250_000, 1_000_000, 2_500_000, 10_000_000]

    /// One entry per bucket, and a last one for what took longer than the last bound.
    public private(set) var counts = [Int](repeating: 0, count: CheckpointTimes.boundsMicros.count + 1)
    public private(set) var sumMicros = 0
    /// Checkpoints that failed (a full disk, a file gone); not timed.
    public private(set) var failures = 0

    public init() {}

    public var count: Int { counts.reduce(0, +) }

    public mutating func record(micros: Int) {
        var bucket = 0
        while bucket < Self.boundsMicros.count, micros > Self.boundsMicros[bucket] { bucket += 1 }
        counts[bucket] += 1
        sumMicros += max(0, micros)
    }

    public mutating func recordFailure() {
        failures += 1
    }
}
