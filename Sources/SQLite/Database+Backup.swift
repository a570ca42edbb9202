import CSQLite

extension Database {
    /// Copies the whole database into `destination` with SQLite's online backup
    /// (sqlite3_backup_*), a consistent snapshot even while another process writes: a
    /// page batch at a time, starting over by itself when a writer changes the source in
    /// between. The copy is one self-contained file (its WAL checkpointed away); a file
    /// already at `destination` is replaced.
    public func backup(to destination: String, pagesPerStep: Int32 = 256) throws(SQLiteError) {
        let source = try live()
        let copy = try Database(path: destination)
        defer { copy.close() }
        let target = try copy.live()
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw SQLiteError(code: sqlite3_errcode(target), connection: target, sql: nil)
        }
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                // Another connection holds a lock for a moment: the command line may wait.
                sqlite3_sleep(20)
            }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteError(code: rc == SQLITE_DONE ? finished : rc, connection: target, sql: nil)
        }
        try copy.checkpoint(.truncate)
    }
}
