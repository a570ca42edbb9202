import CSQLite

// Opening: connection settings and the compile step shared by `statement` and `prepare`.
extension Database {
    static func configure(_ connection: OpaquePointer, _ options: Options) throws(SQLiteError) {
        func check(_ rc: Int32, _ sql: String? = nil) throws(SQLiteError) {
            guard rc == SQLITE_OK else { throw SQLiteError(code: rc, connection: connection, sql: sql) }
        }
        try check(sqlite3_extended_result_codes(connection, 1))
        // Defensive: no writable_schema, no shadow-table writes, no journal_mode=OFF; the
        // SQL cannot corrupt the file even by mistake.
        try check(relaydeck_sqlite_db_config_defensive(connection, 1))
        try check(relaydeck_sqlite_db_config_dqs(connection, 0))
        try check(sqlite3_busy_timeout(connection, options.busyTimeoutMillis))

        let cacheKiB = max(0, options.cacheSizeKiB)
        // temp_store: the statement journals of savepoints (each write request is one inside
        // the loop turn's transaction) stay in memory instead of a temporary file written
        // through system calls; they hold only the pages one statement changed.
        let pragmas = """
            PRAGMA synchronous = \(options.synchronous.rawValue);
            PRAGMA foreign_keys = ON;
            PRAGMA cache_size = -\(cacheKiB);
            PRAGMA temp_store = MEMORY;
            """
        try check(sqlite3_exec(connection, pragmas, nil, nil, nil), pragmas)

        if !options.readOnly && isFile(connection) {
            let mode = try compile("PRAGMA journal_mode = WAL", on: connection, persistent: false)
            guard try mode.step(), let result = mode.string(0), result.lowercased() == "wal" else {
                // For instance a file system without shared memory for the -shm file.
                let found = mode.string(0) ?? "none"
                throw SQLiteError(
                    code: SQLITE_ERROR, message: "journal_mode=WAL did not take effect (the mode is \(found))",
                    sql: mode.sql)
            }
            mode.reset()
        }
        // Reads page 1, so a file of garbage fails here with SQLITE_NOTADB.
        let header = try compile("PRAGMA schema_version", on: connection, persistent: false)
        _ = try header.step()
        header.reset()
    }

    /// False for ":memory:" and the temporary database "" (sqlite3_db_filename is empty).
    static func isFile(_ connection: OpaquePointer) -> Bool {
        guard let name = sqlite3_db_filename(connection, "main") else { return false }
        return name.pointee != 0
    }

    static func compile(_ sql: String, on connection: OpaquePointer, persistent: Bool) throws(SQLiteError) -> Statement {
        var statement: OpaquePointer?
        var single = true
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(connection, text, -1, flags, &statement, &tail)
            if rc == SQLITE_OK, let tail { single = onlyCommentsAndSpace(tail, connection) }
            return rc
        }
        guard rc == SQLITE_OK else {
            throw SQLiteError(code: rc, connection: connection, sql: sql)
        }
        guard let statement else {
            throw .misuse("no SQL statement in the text", sql: sql)
        }
        guard single else {
            sqlite3_finalize(statement)
            throw .misuse("more than one SQL statement; use execute(_:) for scripts", sql: sql)
        }
        return Statement(handle: statement, sql: sql)
    }

    /// True if what follows the first statement compiles to nothing (spaces, comments,
    /// semicolons). Only runs when a statement is compiled, never per use.
    private static func onlyCommentsAndSpace(_ start: UnsafePointer<CChar>, _ connection: OpaquePointer) -> Bool {
        var rest = start
        while rest.pointee != 0 {
            var statement: OpaquePointer?
            var next: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(connection, rest, -1, &statement, &next)
            if let statement {
                sqlite3_finalize(statement)
                return false
            }
            guard rc == SQLITE_OK, let next, next > rest else { return false }
            rest = next
        }
        return true
    }
}
