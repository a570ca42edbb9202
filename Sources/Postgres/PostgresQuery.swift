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
    /// the tag `ROLLBACK` and no error, which the connection turns into one. Only the first
    /// word is read, its bytes compared in ASCII: every statement sent asks, and splitting a
    /// whole statement into uppercased words was most of a request's CPU on PostgreSQL.
    var isCommit: Bool {
        let word = sql.utf8.drop(while: Self.isSeparator).prefix { !Self.isSeparator($0) }
        return Self.isWord(word, "COMMIT") || Self.isWord(word, "END")
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\n")
    }

    /// Whether `bytes` spell `word` (uppercase ASCII letters) in either case.
    private static func isWord(_ bytes: Substring.UTF8View, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        // A byte with 0x20 cleared is an uppercase letter only for that letter or its lowercase.
        return word.withUTF8Buffer { letters in zip(bytes, letters).allSatisfy { $0 & 0xDF == $1 } }
    }
}
