import CSQLite

/// The current row of a statement, read by column name. A name the statement does not have,
/// a NULL where a value must be, or a value of another storage class throws SQLITE_MISMATCH
/// naming the column: a query out of step with its decoder is a loud error, never an empty
/// string or a zero.
public struct Row {
    public let statement: Statement

    public init(_ statement: Statement) {
        self.statement = statement
        statement.nextColumn = 0
    }

    /// The position of the column `name` in the result: the one after the column read last
    /// when its name matches, else looked up.
    public func index(_ name: String) throws(SQLiteError) -> Int32 {
        let guess = statement.nextColumn
        let order = statement.columnOrder
        if guess < order.count && order[guess] == name {
            statement.nextColumn = guess + 1
            return Int32(guess)
        }
        if statement.columnIndex == nil {
            let names = statement.columnNames()
            statement.columnIndex = names
            // A name given to two columns is found where the lookup finds it, never by the
            // guess: the other position holds a name no column can have (C strings end at NUL).
            var order = [String](repeating: "\u{0}", count: Int(statement.columnCount))
            for (name, position) in names where Int(position) < order.count { order[Int(position)] = name }
            statement.columnOrder = order
        }
        guard let index = statement.columnIndex?[name] else {
            throw mismatch("has no column \(name)")
        }
        statement.nextColumn = Int(index) + 1
        return index
    }

    public func text(_ name: String) throws(SQLiteError) -> String {
        try required(name, try optionalText(name))
    }

    public func optionalText(_ name: String) throws(SQLiteError) -> String? {
        try optional(name, SQLITE_TEXT, "TEXT") { statement.string($0) }
    }

    public func int64(_ name: String) throws(SQLiteError) -> Int64 {
        try required(name, try optionalInt64(name))
    }

    public func optionalInt64(_ name: String) throws(SQLiteError) -> Int64? {
        try optional(name, SQLITE_INTEGER, "INTEGER") { statement.int64($0) }
    }

    /// The value of `name`: nil for NULL, an error for any class but `storageClass`.
    private func optional<Value>(_ name: String, _ storageClass: Int32, _ className: String,
                                 _ read: (Int32) -> Value?) throws(SQLiteError) -> Value? {
        let column = try index(name)
        switch statement.storageClass(column) {
        case SQLITE_NULL: return nil
        case storageClass: return read(column)
        default: throw mismatch("column \(name) is not \(className)")
        }
    }

    private func required<Value>(_ name: String, _ value: Value?) throws(SQLiteError) -> Value {
        guard let value else { throw mismatch("column \(name) is NULL") }
        return value
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
