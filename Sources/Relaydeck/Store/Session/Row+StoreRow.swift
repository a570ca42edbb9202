import SQLite

/// `Row` as a session's row: its own readers (`text`, `int64`, `bool` of 0 and 1, `blob`, ...)
/// and the three it lacks, with the same rule: a name the statement does not have, or a value
/// of another storage class, throws SQLITE_MISMATCH naming the column.
extension Row: StoreRow {
    /// A REAL; an INTEGER throws, as `float8` is the only type PostgreSQL reads as a double.
    public func double(_ name: String) throws -> Double {
        let column = try index(name)
        switch statement.value(column) {
        case .real(let number): return number
        case .null: throw mismatch("column \(name) is NULL")
        default: throw mismatch("column \(name) is not REAL")
        }
    }

    /// A BLOB (an empty one is `[]`), or nil for NULL.
    public func optionalBlob(_ name: String) throws -> [UInt8]? {
        let column = try index(name)
        switch statement.value(column) {
        case .blob(let bytes): return bytes
        case .null: return nil
        default: throw mismatch("column \(name) is not a BLOB")
        }
    }

    public func isNull(_ name: String) throws -> Bool {
        statement.isNull(try index(name))
    }

    /// SQLITE_MISMATCH, as `Row`'s own readers throw (the constant is CSQLite's).
    private func mismatch(_ what: String) -> SQLiteError {
        SQLiteError(code: 20, message: "the result \(what)", sql: statement.sql)
    }
}
