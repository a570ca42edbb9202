import CSQLite

extension Database {
    public enum CheckpointMode: Sendable {
        case passive, full, restart, truncate

        var rawValue: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .full: SQLITE_CHECKPOINT_FULL
            case .restart: SQLITE_CHECKPOINT_RESTART
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// A cheap read of the database header (PRAGMA schema_version), so a health check
    /// notices a store that cannot be read.
    public func check() throws(SQLiteError) {
        let statement = try statement("PRAGMA schema_version")
        defer { statement.reset() }
        _ = try statement.step()
    }

    /// Copies the WAL into the database file (sqlite3_wal_checkpoint_v2). `.truncate`, the
    /// default, also empties the -wal file, which otherwise keeps its largest size. A
    /// no-op for ":memory:". Throws SQLITE_BUSY when readers or a writer on another
    /// connection keep it from finishing within the busy timeout.
    public func checkpoint(_ mode: CheckpointMode = .truncate) throws(SQLiteError) {
        _ = try checkpointFrames(mode)
    }

    /// `checkpoint`, and how many frames the WAL holds and how many of them are in the
    /// database file now (equal: the next write starts the WAL over).
    @discardableResult
    public func checkpointFrames(_ mode: CheckpointMode) throws(SQLiteError) -> (log: Int, copied: Int) {
        let connection = try live()
        var log: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(connection, nil, mode.rawValue, &log, &copied)
        guard rc == SQLITE_OK else {
            throw SQLiteError(code: rc, connection: connection, sql: nil)
        }
        return (Int(log), Int(copied))
    }

    /// PRAGMA user_version: the schema version the migrations have reached.
    public var userVersion: Int {
        get throws(SQLiteError) {
            let statement = try statement("PRAGMA user_version")
            defer { statement.reset() }
            guard try statement.step() else { return 0 }
            return statement.int(0)
        }
    }
}
