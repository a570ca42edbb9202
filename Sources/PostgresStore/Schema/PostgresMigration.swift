/// One step of the PostgreSQL schema: the text of the SQLite migration of the same number
/// (`Relaydeck.Schema.migrations`), as PostgreSQL statements. Applied once, in order, by
/// `PostgresMigrator`, in one transaction with its row of `schema_migrations`.
///
/// The statements are a list because the extended protocol parses one statement at a time
/// (a function body holds semicolons of its own). An empty list is a migration that exists
/// only for SQLite; it is still recorded, so both stores count the same versions.
public struct PostgresMigration: Sendable {
    public let version: Int
    /// The SQLite migration's name, word for word: the history table keeps it, and a
    /// database whose history names another migration at this number is refused.
    public let name: String
    public let statements: [String]

    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}
