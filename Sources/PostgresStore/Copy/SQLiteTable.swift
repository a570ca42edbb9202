/// A table of a SQLite store as `PRAGMA table_info` describes it, for the copy into
/// PostgreSQL and the tests that compare the two schemas.
public struct SQLiteTable: Sendable, Equatable {
    public let name: String
    /// In the table's order (`cid`).
    public let columns: [SQLiteColumn]
    /// False for a `WITHOUT ROWID` table.
    public let hasRowid: Bool
    /// The tables its foreign keys name (`PRAGMA foreign_key_list`).
    public let references: [String]
}

public struct SQLiteColumn: Sendable, Equatable {
    public let name: String
    /// The declared type, as written: `INTEGER`, `TEXT`, `BLOB` in a STRICT table.
    public let declaredType: String
    public let notNull: Bool
    /// The default's SQL text (`0`, `63`), nil without one.
    public let defaultValue: String?
    /// 1, 2, ... for the columns of the primary key in its order; 0 for the others.
    public let primaryKeyPosition: Int

    /// The kind of value the copy carries, from the declared type; nil for a type the copy
    /// does not know (a STRICT table allows `REAL` and `ANY`, which the schema never uses).
    public var kind: ColumnKind? { ColumnKind(sqliteType: declaredType) }
}

/// What a column holds, in both stores: SQLite's STRICT type and PostgreSQL's type for it.
public enum ColumnKind: String, Sendable, Equatable {
    case integer, text, blob

    public init?(sqliteType: String) {
        switch sqliteType.uppercased() {
        case "INTEGER": self = .integer
        case "TEXT": self = .text
        case "BLOB": self = .blob
        default: return nil
        }
    }

    /// `information_schema.columns.data_type`.
    public init?(postgresType: String) {
        switch postgresType {
        case "bigint": self = .integer
        case "text": self = .text
        case "bytea": self = .blob
        default: return nil
        }
    }

    public var postgresType: String {
        switch self {
        case .integer: "bigint"
        case .text: "text"
        case .blob: "bytea"
        }
    }
}
