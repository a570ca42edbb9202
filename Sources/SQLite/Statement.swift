import CSQLite

/// A prepared statement. It owns its `sqlite3_stmt` and finalizes it in `deinit`.
///
/// Not Sendable: it belongs to the thread that owns its `Database`. A statement from
/// `Database.statement(_:)` is shared through the cache: once finished with (stepped to the
/// end, or `reset()`), the cache hands the same object out again; while it is still
/// stepping, the cache prepares another one instead.
///
/// Using a statement after `Database.close()` finalized it throws SQLITE_MISUSE, and column
/// reads return NULL values; nothing traps.
public final class Statement {
    /// The SQL text the statement was prepared from.
    public let sql: String

    /// nil once finalized. Cached statements are finalized by `Database.close()` while a
    /// caller may still hold them, so every use checks.
    private(set) var handle: OpaquePointer?
    /// Column positions by name, built on the first read by name (see `Row`).
    var columnIndex: [String: Int32]?
    /// The column names by position, and the position after the last one read: decoders
    /// read the columns in the order of the SELECT, so the next name asked for is usually
    /// there, and one comparison of short strings replaces a hash lookup (`Row.index`).
    var columnOrder: [String] = []
    var nextColumn = 0

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        if let handle { sqlite3_finalize(handle) }
    }

    /// Finalizes now; later uses throw SQLITE_MISUSE.
    func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    /// Steps once. Returns true when a row is ready to read, false when the statement is
    /// done. On done and on error the statement is reset (bindings kept), so it holds no
    /// read snapshot open; stepping it again runs it again.
    public func step() throws(SQLiteError) -> Bool {
        let handle = try live()
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let error = SQLiteError(code: rc, connection: sqlite3_db_handle(handle), sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds `values` from index 1 (when any are given; otherwise earlier `bind` calls
    /// stand), steps to the end, and resets with bindings cleared, even when it fails.
    /// Returns sqlite3_changes: the rows changed by this statement if it was an INSERT,
    /// UPDATE or DELETE, otherwise the count of the last such statement.
    @discardableResult
    public func run(_ values: SQLiteValue...) throws(SQLiteError) -> Int {
        let handle = try live()
        // A caller may have left it mid-way through rows; binding would then fail.
        sqlite3_reset(handle)
        defer { reset() }
        if !values.isEmpty { try bind(values) }
        while try step() {}
        return Int(truncatingIfNeeded: sqlite3_changes64(sqlite3_db_handle(handle)))
    }

    /// sqlite3_reset and sqlite3_clear_bindings: ready to bind and run again, and no longer
    /// holding a read snapshot or copies of the bound values.
    public func reset() {
        guard let handle else { return }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// True between a step that gave a row and the end of the rows or a reset
    /// (sqlite3_stmt_busy): someone is reading this statement's rows.
    public var isStepping: Bool {
        guard let handle else { return false }
        return sqlite3_stmt_busy(handle) != 0
    }

    /// The number of columns in a row of the result (0 for statements without rows).
    public var columnCount: Int32 {
        guard let handle else { return 0 }
        return sqlite3_column_count(handle)
    }

    /// The number of parameters (the largest index for `?NNN` parameters).
    public var parameterCount: Int32 {
        guard let handle else { return 0 }
        return sqlite3_bind_parameter_count(handle)
    }

    func live() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw .misuse("statement used after its database was closed", sql: sql) }
        return handle
    }

    func check(_ rc: Int32, _ handle: OpaquePointer) throws(SQLiteError) {
        guard rc == SQLITE_OK else {
            throw SQLiteError(code: rc, connection: sqlite3_db_handle(handle), sql: sql)
        }
    }
}

@available(*, unavailable, message: "a Statement belongs to the thread that owns its Database")
extension Statement: Sendable {}
