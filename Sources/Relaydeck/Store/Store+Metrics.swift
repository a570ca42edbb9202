import SQLite

/// What `/metrics` reads of the store's file and its checkpoints, in types of this module
/// (the API does not import SQLite).
extension Store {
    /// How long one runner's WAL checkpoints took, as a histogram's counts, and how many failed.
    public struct CheckpointFigures: Sendable, Equatable {
        /// The buckets' upper bounds in microseconds (1 ms to 10 s).
        public static var boundsMicros: [Int] { CheckpointTimes.boundsMicros }

        /// One entry per bucket, and a last one for what took longer than the last bound.
        public let counts: [Int]
        public let sumMicros: Int
        public let failures: Int

        init(_ times: CheckpointTimes) {
            counts = times.counts
            sumMicros = times.sumMicros
            failures = times.failures
        }
    }

    /// The checkpoint thread's checkpoints (each request's passes together); empty without
    /// the thread.
    public var threadCheckpoints: CheckpointFigures { CheckpointFigures(threadCheckpointTimes) }

    /// The checkpoints the loop ran itself, when the thread fell behind.
    public var loopCheckpoints: CheckpointFigures { CheckpointFigures(loopCheckpointTimes) }

    /// The WAL file's size on disk; nil without one (no WAL yet, `:memory:`).
    public var walFileBytes: Int? { WALFile.bytes(databasePath: path) }
}
