/// One step of the schema, applied once, in order, by `Migrator`.
public struct Migration: Sendable {
    /// 1, 2, 3, ...: the value of PRAGMA user_version once applied.
    public let version: Int
    /// For the log line ("applied migration 3 (tasks.archived_at)").
    public let name: String
    /// One or more statements, run in one transaction with the version bump.
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Why migrations cannot run. Either way the database is left as it was.
public enum MigrationError: Error, Equatable, CustomStringConvertible {
    /// The file was written by a newer relaydeckd: its schema is `found`, this build knows
    /// up to `known`.
    case newerSchema(found: Int, known: Int)
    /// The list is not 1...n in order: `version` is the first one out of place.
    case outOfOrder(version: Int)

    public var description: String {
        switch self {
        case .newerSchema(let found, let known):
            "the database schema is version \(found), but this relaydeckd knows only up to \(known): it was written by a newer release"
        case .outOfOrder(let version):
            "migration \(version) is out of order: versions must be 1, 2, 3, ... in the list's order"
        }
    }
}
