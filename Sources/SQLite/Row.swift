import CSQLite

/// The current row of a statement, read by column name. A name the statement does not have,
/// a NULL where a value must be, or a value of another storage class throws SQLITE_MISMATCH
/// naming the column: a query out of step with its decoder is a loud error, never an empty
/// string or a zero.
public struct Row {
    public let statement: Statement

    public init(_ statement: Statement) {
        self.statement = statement
    }

    /// The position of the column `name` in the result.
    public func index(_ name: String) throws(SQLiteError) -> Int32 {
        if statement.columnIndex == nil {
            statement.columnIndex = statement.columnNames()
        }
        guard let index = statement.columnIndex?[name] else {
            throw mismatch("has no column \(name)")
        }
        return index
    }

    public func text(_ name: String) throws(SQLiteError) -> String {
        guard let value = try optionalText(name) else { throw mismatch("column \(name) is NULL") }
        return value
    }

    public func optionalText(_ name: String) throws(SQLiteError) -> String? {
        let column = try index(name)
        switch statement.storageClass(column) {
        case SQLITE_NULL: return nil
        case SQLITE_TEXT: return statement.string(column)
        default: throw mismatch("column \(name) is not TEXT")
        }
    }

    public func int64(_ name: String) throws(SQLiteError) -> Int64 {
        guard let value = try optionalInt64(name) else { throw mismatch("column \(name) is NULL") }
        return value
    }

    public func optionalInt64(_ name: String) throws(SQLiteError) -> Int64? {
        let column = try index(name)
        switch statement.storageClass(column) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER: return statement.int64(column)
        default: throw mismatch("column \(name) is not INTEGER")
        }
    }

    public func int(_ name: String) throws(SQLiteError) -> Int {
        Int(truncatingIfNeeded: try int64(name))
    }

    /// 0 or 1, as the schema's CHECK constraints keep booleans.
    public func bool(_ name: String) throws(SQLiteError) -> Bool {
        switch try int64(name) {
        case 0: return false
        case 1: return true
        default: throw mismatch("column \(name) is not 0 or 1")
        }
    }

    public func blob(_ name: String) throws(SQLiteError) -> [UInt8] {
        let column = try index(name)
        guard statement.storageClass(column) == SQLITE_BLOB, let bytes = statement.blob(column) else {
            throw mismatch("column \(name) is not a BLOB")
        }
        return bytes
    }

    private func mismatch(_ what: String) -> SQLiteError {
        SQLiteError(code: SQLITE_MISMATCH, message: "the result \(what)", sql: statement.sql)
    }
}

extension Statement {
    /// The names of the result columns (`AS` names where given), by position.
    func columnNames() -> [String: Int32] {
        guard let handle else { return [:] }
        var names: [String: Int32] = [:]
        for column in 0..<sqlite3_column_count(handle) {
            if let name = sqlite3_column_name(handle, column) {
                names[String(cString: name)] = column
            }
        }
        return names
    }

    func storageClass(_ column: Int32) -> Int32 {
        guard let handle, column < sqlite3_column_count(handle) else { return SQLITE_NULL }
        return sqlite3_column_type(handle, column)
    }

    /// Steps once and gives the row by name, or nil when there are no more rows.
    public func nextRow() throws(SQLiteError) -> Row? {
        try step() ? Row(self) : nil
    }
}
