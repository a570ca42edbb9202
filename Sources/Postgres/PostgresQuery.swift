/// One statement to run: its SQL (one statement, `$1`-style parameters) and the values bound
/// to them. The SQL is also the key of the connection's prepared statements, so it is the
/// program's fixed text, never built from values.
public struct PostgresQuery: Sendable {
    public let sql: String
    public let values: [PostgresValue]

    public init(_ sql: String, _ values: [PostgresValue] = []) {
        self.sql = sql
        self.values = values
    }

    public init(_ sql: String, _ values: PostgresValue...) {
        self.init(sql, values)
    }

    public static let begin = PostgresQuery("BEGIN")
    public static let commit = PostgresQuery("COMMIT")
    public static let rollback = PostgresQuery("ROLLBACK")

    /// `SAVEPOINT name`; `name` is the program's (a letter and digits), never a value.
    public static func savepoint(_ name: String) -> PostgresQuery {
        PostgresQuery("SAVEPOINT \(checked(name))")
    }

    public static func releaseSavepoint(_ name: String) -> PostgresQuery {
        PostgresQuery("RELEASE SAVEPOINT \(checked(name))")
    }

    public static func rollbackToSavepoint(_ name: String) -> PostgresQuery {
        PostgresQuery("ROLLBACK TO SAVEPOINT \(checked(name))")
    }

    private static func checked(_ name: String) -> String {
        precondition(!name.isEmpty && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F },
                     "a savepoint name is lowercase letters, digits and _")
        return name
    }

    /// Whether this is a COMMIT: the server answers a COMMIT of a failed transaction with
    /// the tag `ROLLBACK` and no error, which the connection turns into one.
    var isCommit: Bool {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "\n" }).map { $0.uppercased() }
        return words.first == "COMMIT" || words.first == "END"
    }
}
