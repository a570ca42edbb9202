import SQLite

extension Database {
    /// Whether `sql` (a `SELECT 1 ...`) gives a row for `values`.
    func exists(_ sql: String, _ values: SQLiteValue...) throws -> Bool {
        try firstRow(sql, values) { _ in true } ?? false
    }

    /// The `n` column of the one row of `sql` (a `SELECT count(*) AS n ...`).
    func count(_ sql: String, _ values: SQLiteValue...) throws -> Int {
        try firstRow(sql, values) { try $0.int("n") } ?? 0
    }
}
