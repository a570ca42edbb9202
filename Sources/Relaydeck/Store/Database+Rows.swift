import SQLite

extension Database {
    /// The first row of `sql` bound to `values`, decoded by name; nil when there is none. The
    /// cached statement is reset before this returns, so it can run again at once.
    func firstRow<T>(_ sql: String, _ values: [SQLiteValue], _ decode: (Row) throws -> T) throws -> T? {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        guard let row = try statement.nextRow() else { return nil }
        return try decode(row)
    }

    /// The rows of `sql` in the statement's order, up to and with the first one for which
    /// `isLast` is true: the rows after it are never stepped to (nor their large values read).
    func rows<T>(_ sql: String, _ values: [SQLiteValue], through isLast: (T) -> Bool,
                 _ decode: (Row) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var decoded: [T] = []
        while let row = try statement.nextRow() {
            let value = try decode(row)
            decoded.append(value)
            if isLast(value) { break }
        }
        return decoded
    }

    /// Every row of `sql` bound to `values`, decoded by name, in the statement's order.
    func rows<T>(_ sql: String, _ values: [SQLiteValue], _ decode: (Row) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var decoded: [T] = []
        while let row = try statement.nextRow() { decoded.append(try decode(row)) }
        return decoded
    }
}
