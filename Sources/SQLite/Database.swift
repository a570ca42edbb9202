import CSQLite

/// One SQLite connection, opened for the server's use: WAL, foreign keys, a busy timeout,
/// defensive mode, extended result codes, and a cache of prepared statements.
///
/// Not Sendable: one thread (the event loop) owns it and every statement prepared on it.
/// The connection is opened with SQLITE_OPEN_NOMUTEX, so SQLite does no locking of its own
/// for it either.
public final class Database {
    /// The path given to `init`; ":memory:" for an in-memory database.
    public let path: String

    /// nil once closed.
    private(set) var handle: OpaquePointer?
    private var cache = StatementCache()
    /// How many `transaction` calls are running; above 1 they are savepoints.
    var transactionDepth = 0
    /// Set when a ROLLBACK of ours failed and left the connection inside a transaction that
    /// nobody will commit; the next outermost `transaction` rolls it back first.
    var abandonedTransaction = false
    /// The handler of `onCommit(walFrames:)`, kept alive with the connection.
    var walHook: WALHook?

    /// Opens (creating if needed, unless `options.readOnly`) with SQLITE_OPEN_NOMUTEX and
    /// extended result codes; sets journal_mode=WAL for files (":memory:" stays in
    /// memory), synchronous, busy_timeout, foreign_keys=ON, cache_size,
    /// SQLITE_DBCONFIG_DEFENSIVE, and turns double-quoted string literals off. Checks that
    /// WAL really took effect for a file and reads the file's header, so a file that is
    /// not a database fails here (SQLITE_NOTADB) rather than on first use.
    ///
    /// A read-only connection leaves the journal mode as the file has it.
    public init(path: String, options: Options = Options()) throws(SQLiteError) {
        let setUp = SQLiteLibrary.setUp
        guard setUp == SQLITE_OK else {
            throw SQLiteError(code: setUp, connection: nil, sql: nil)
        }
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var connection: OpaquePointer?
        let rc = sqlite3_open_v2(path, &connection, flags, nil)
        guard rc == SQLITE_OK, let connection else {
            // Even a failed open allocates a handle (it carries the message); free it.
            let error = SQLiteError(code: rc, connection: connection, sql: nil)
            sqlite3_close_v2(connection)
            throw error
        }
        do {
            try Self.configure(connection, options)
        } catch {
            sqlite3_close_v2(connection)
            throw error
        }
        self.path = path
        self.handle = connection
    }

    deinit {
        close()
    }

    /// Finalizes every cached statement and closes (sqlite3_close_v2). Idempotent.
    ///
    /// Cached statements still held by callers are finalized too (using them throws
    /// SQLITE_MISUSE). Statements from `prepare(_:)` still alive keep the connection's
    /// memory until they are released; close_v2 frees it then. An open transaction is
    /// rolled back.
    public func close() {
        guard let connection = handle else { return }
        cache.finalizeAll()
        sqlite3_close_v2(connection)
        handle = nil
    }

    /// One or more statements without parameters (sqlite3_exec), for scripts and
    /// migrations. Rows of queries are discarded.
    public func execute(_ sql: String) throws(SQLiteError) {
        let connection = try live()
        let rc = sqlite3_exec(connection, sql, nil, nil, nil)
        guard rc == SQLITE_OK else {
            throw SQLiteError(code: rc, connection: connection, sql: sql)
        }
    }

    /// A prepared statement from the cache (keyed by SQL text, prepared with
    /// SQLITE_PREPARE_PERSISTENT), returned reset and with its bindings cleared.
    ///
    /// The same SQL gives the same object, except while that object is still stepping
    /// through rows (a nested use of the same SQL inside a loop over its rows): resetting it
    /// would silently end the outer loop, so the nested use gets a statement of its own.
    /// Meant for the fixed SQL of the application; build-per-request SQL belongs in
    /// `prepare(_:)` (the cache is bounded and starts over when full). SQL holding more
    /// than one statement is refused with SQLITE_MISUSE rather than silently cut short.
    public func statement(_ sql: String) throws(SQLiteError) -> Statement {
        let connection = try live()
        if let cached = cache[sql] {
            if cached.isStepping {
                return try Self.compile(sql, on: connection, persistent: false)
            }
            cached.reset()
            return cached
        }
        let statement = try Self.compile(sql, on: connection, persistent: true)
        cache.insert(statement)
        return statement
    }

    /// An uncached statement, for one-off SQL. The caller owns it; it is finalized when
    /// released.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Self.compile(sql, on: try live(), persistent: false)
    }

    /// sqlite3_changes: rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int {
        guard let handle else { return 0 }
        return Int(truncatingIfNeeded: sqlite3_changes64(handle))
    }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        guard let handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    /// True between BEGIN and COMMIT/ROLLBACK (!sqlite3_get_autocommit).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// The version of the linked SQLite library, for example "3.40.1".
    public static var libraryVersion: String { SQLiteLibrary.version }

    func live() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw .misuse("database is closed") }
        return handle
    }
}

@available(*, unavailable, message: "a Database belongs to the one thread that owns it")
extension Database: Sendable {}
