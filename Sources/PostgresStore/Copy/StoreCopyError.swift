import Postgres
import SQLite

/// Why `migrate-to-postgres` copied nothing. Whatever it is, no row of the copy was
/// committed: the copy is one transaction. None of the messages holds a value of a row (a
/// token's hash, a text) or the connection string's password.
public enum StoreCopyError: Error, CustomStringConvertible {
    /// The SQLite file's schema is older than this binary's: it must be migrated first.
    case sourceOutdated(found: Int, current: Int)
    /// The SQLite file was written by a newer relaydeckd.
    case sourceNewer(found: Int, current: Int)
    case sqlite(SQLiteError)
    case migration(PostgresMigrationError)
    /// The two schemas differ (a table or column of one missing in the other, or typed otherwise).
    case schemaMismatch([String])
    /// These PostgreSQL tables hold rows already.
    case targetNotEmpty([String])
    /// A value PostgreSQL cannot hold as the schema says (text that is not UTF-8, a NUL in a
    /// text, a value of another type than its column's); `row` names it by rowid or position.
    case unreadableValue(table: String, row: String, column: String, problem: String)
    case postgres(PostgresError)
    /// The copy's check before COMMIT: these tables differ.
    case verificationFailed([TableDifference])

    public struct TableDifference: Sendable, Equatable, CustomStringConvertible {
        public let table: String
        public let expected: TableChecksum
        public let found: TableChecksum

        public var description: String { "\(table): SQLite \(expected), PostgreSQL \(found)" }
    }

    public var description: String {
        switch self {
        case .sourceOutdated(let found, let current):
            "the SQLite file is at schema version \(found), this relaydeckd's is \(current): start this relaydeckd on it once "
                + "(with DATABASE_PATH set to it and DATABASE_URL unset; it migrates the file at start), stop it, then copy again"
        case .sourceNewer(let found, let current):
            "the SQLite file is at schema version \(found), but this relaydeckd knows only up to \(current): it was written by a newer release"
        case .sqlite(let error):
            "cannot read the SQLite file: \(error)"
        case .migration(let error):
            "cannot migrate the PostgreSQL database: \(error)"
        case .schemaMismatch(let differences):
            "the SQLite and PostgreSQL schemas differ: " + differences.joined(separator: "; ")
        case .targetNotEmpty(let tables):
            "the PostgreSQL database holds rows already (in \(tables.joined(separator: ", "))): "
                + "migrate-to-postgres copies into an empty database only"
        case .unreadableValue(let table, let row, let column, let problem):
            "\(table), \(row), column \(column): \(problem)"
        case .postgres(let error):
            "the copy failed and was rolled back: \(error)"
        case .verificationFailed(let differences):
            "the copy was rolled back, as PostgreSQL does not hold what was read: "
                + differences.map(\.description).joined(separator: "; ")
        }
    }
}
