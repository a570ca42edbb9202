import Glibc

/// The size of a database's WAL file on disk (`<path>-wal`), for `/metrics`: one `stat`,
/// no read of the file. The file keeps its size when the log starts over (SQLite writes
/// from its start again), so this is the disk the WAL takes, not what it holds now: the
/// frames are `Store.walFrames`.
public enum WALFile {
    /// Nil when there is no such file (no WAL yet, an in-memory database, a file gone).
    public static func bytes(databasePath path: String) -> Int? {
        guard path != ":memory:", !path.isEmpty else { return nil }
        var info = stat()
        guard stat(path + "-wal", &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
