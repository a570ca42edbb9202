import CSQLite
import CSQLiteVFS

/// Process-wide SQLite configuration, applied once before the first connection opens.
enum SQLiteLibrary {
    /// Evaluated lazily and exactly once (a Swift global initializer runs under
    /// swift_once), which is what sqlite3_config needs: it only works before
    /// sqlite3_initialize.
    ///
    /// MULTITHREAD rather than SINGLETHREAD: connections are opened with NOMUTEX anyway, so
    /// the only mutexes left are SQLite's global ones (allocator, page cache, the inode
    /// list shared by connections to the same file). SINGLETHREAD would drop those too,
    /// which is unsafe as soon as two threads open connections (Swift Testing runs tests in
    /// parallel; a helper thread could run a backup), and measured no faster (within 2 %
    /// on a WAL insert/select loop). MEMSTATUS off removes the allocator's statistics
    /// mutex and bookkeeping from every malloc.
    ///
    /// If something in the process already initialized SQLite, the config calls fail with
    /// SQLITE_MISUSE and the library keeps its defaults (serialized), which is slower but
    /// correct; that is why their results are ignored.
    ///
    /// Then the WAL writer becomes the default VFS (`CSQLiteVFS`): each commit's WAL frames
    /// in one write system call. Should it fail, the default VFS stays (as slow, as correct).
    static let setUp: Int32 = {
        _ = relaydeck_sqlite_config_multi_thread()
        _ = relaydeck_sqlite_config_memstatus(0)
        let rc = sqlite3_initialize()
        if rc == SQLITE_OK { _ = relaydeck_wal_writer_register() }
        return rc
    }()

    /// The version of the linked library, for example "3.40.1".
    static var version: String {
        guard let text = sqlite3_libversion() else { return "unknown" }
        return String(cString: text)
    }
}
