import SQLite

extension Database {
    /// Whether `sql` (a `SELECT 1 ...`) gives a row for `values`.
    func exists(_ sql: String, _ values: SQLiteValue...) throws -> Bool {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step()
    }

    /// The `n` column of the one row of `sql` (a `SELECT count(*) AS n ...`).
    func count(_ sql: String, _ values: SQLiteValue...) throws -> Int {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        guard let row = try statement.nextRow() else { return 0 }
        return try row.int("n")
    }
}
