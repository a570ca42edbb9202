import SQLite

extension Row {
    /// A stored `ScopeSet` (an INTEGER of `Scope.bit`s). A bit no scope has is a loud error of
    /// the row, as a column out of step with its decoder is: never a power read as none, or
    /// one read that nothing names.
    func scopes(_ name: String) throws(SQLiteError) -> ScopeSet {
        let bits = try int64(name)
        guard let scopes = ScopeSet(bits: bits) else {
            // SQLITE_MISMATCH, as `Row` answers a column of the wrong kind.
            throw SQLiteError(code: 20, message: "the result column \(name) has bits no scope has", sql: statement.sql)
        }
        return scopes
    }
}

extension StoreRow {
    /// The same through a store session's row (either store).
    func scopes(_ name: String) throws -> ScopeSet {
        let bits = try int64(name)
        guard let scopes = ScopeSet(bits: bits) else {
            throw StoreError.failure("the result column \(name) has bits no scope has")
        }
        return scopes
    }
}
