import CSQLite

/// The closure of `Database.onCommit(walFrames:)`, passed to SQLite as its context pointer.
final class WALHook {
    let handler: (Int) -> Void

    init(_ handler: @escaping (Int) -> Void) {
        self.handler = handler
    }
}

extension Database {
    /// Calls `handler` after each commit with the number of frames in the WAL, instead of
    /// SQLite's automatic checkpoint (which is that same hook, and is gone once this is set):
    /// the caller decides when and where to checkpoint (`Checkpointer`).
    public func onCommit(walFrames handler: @escaping (Int) -> Void) throws(SQLiteError) {
        let connection = try live()
        let hook = WALHook(handler)
        walHook = hook
        sqlite3_wal_hook(connection, { context, _, _, frames in
            Unmanaged<WALHook>.fromOpaque(context!).takeUnretainedValue().handler(Int(frames))
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }
}
