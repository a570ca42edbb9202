extension Database {
    /// How a connection is opened. The defaults are the server's: durable against a crash
    /// of the process (WAL with synchronous=NORMAL), not against power loss; FULL adds an
    /// fsync per commit for that.
    public struct Options: Sendable {
        public enum Synchronous: String, Sendable {
            case normal = "NORMAL"
            case full = "FULL"
        }

        public var synchronous: Synchronous = .normal
        /// How long a write waits for another connection's lock before SQLITE_BUSY.
        public var busyTimeoutMillis: Int32 = 5000
        /// The page cache per connection, in KiB (PRAGMA cache_size = -N). Negative
        /// values count as 0 (SQLite's minimum).
        public var cacheSizeKiB: Int = 2048
        /// Opens with SQLITE_OPEN_READONLY: the file must exist, writes fail with
        /// SQLITE_READONLY, and the journal mode is left as it is.
        public var readOnly: Bool = false

        public init() {}
    }
}
