/// A column of the PostgreSQL schema as `information_schema.columns` gives it.
public struct PostgresColumn: Sendable, Equatable {
    public let table: String
    public let name: String
    /// `data_type`: `bigint`, `text`, `bytea`.
    public let dataType: String
    public let isIdentity: Bool

    public init(table: String, name: String, dataType: String, isIdentity: Bool) {
        self.table = table
        self.name = name
        self.dataType = dataType
        self.isIdentity = isIdentity
    }

    /// The statement that lists them, for the tables of the schema the migrations made.
    public static let sql = """
        SELECT table_name::text AS table_name, column_name::text AS column_name, data_type::text AS data_type, \
        is_identity::text AS is_identity FROM information_schema.columns WHERE table_schema = current_schema() \
        ORDER BY table_name, ordinal_position
        """
}

/// How one table is copied: the columns read from SQLite and written to PostgreSQL, in one
/// order on both sides, and the statements built from them.
struct CopyTable {
    let source: SQLiteTable
    /// Whether PostgreSQL keeps SQLite's `rowid` (`PostgresSchema`): then it is read and
    /// written first.
    let withRowid: Bool
    let columns: [(name: String, kind: ColumnKind)]
    /// Positions in `columns` of PostgreSQL's identity columns: their sequences are set past
    /// the largest value copied.
    let identityPositions: [Int]

    var name: String { source.name }

    var insertSQL: String {
        let names = columns.map { SQLiteSnapshot.quoted($0.name) }.joined(separator: ", ")
        let parameters = (1...max(1, columns.count)).map { "$\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(SQLiteSnapshot.quoted(name)) (\(names)) VALUES (\(parameters))"
    }

    var checksumSQL: String { TableChecksum.postgresSQL(table: name, columns: columns) }
}

/// The copy's plan: every table of the SQLite file matched with PostgreSQL's, column by
/// column, or every difference. A difference means this binary has a SQLite migration without
/// its PostgreSQL text (the tests catch that first), or a file whose schema is not the
/// migrations' own.
enum CopyPlan {
    /// PostgreSQL's own table of the migrations applied; not copied, nor are the other tables
    /// only PostgreSQL has (`PostgresSchema.postgresOnlyTables`: the change feed).
    static let historyTable = "schema_migrations"

    static func tables(sqlite: [SQLiteTable], postgres: [PostgresColumn]) -> Result<[CopyTable], StoreCopyError> {
        var byTable: [String: [PostgresColumn]] = [:]
        for column in postgres where column.table != historyTable && !PostgresSchema.postgresOnlyTables.contains(column.table) {
            byTable[column.table, default: []].append(column)
        }
        var differences: [String] = []
        var plan: [CopyTable] = []
        for table in sqlite {
            guard let target = byTable.removeValue(forKey: table.name) else {
                differences.append("PostgreSQL has no table \(table.name)")
                continue
            }
            let withRowid = target.contains { $0.name == "rowid" }
            if withRowid && !table.hasRowid { differences.append("\(table.name) has a rowid in PostgreSQL but not in SQLite") }
            var columns: [(name: String, kind: ColumnKind)] = withRowid ? [("rowid", .integer)] : []
            for column in table.columns {
                guard let kind = column.kind else {
                    differences.append("\(table.name).\(column.name) is \(column.declaredType) in SQLite, which the copy does not carry")
                    continue
                }
                guard let match = target.first(where: { $0.name == column.name }) else {
                    differences.append("PostgreSQL has no column \(table.name).\(column.name)")
                    continue
                }
                if ColumnKind(postgresType: match.dataType) != kind {
                    differences.append("\(table.name).\(column.name) is \(column.declaredType) in SQLite but \(match.dataType) in PostgreSQL")
                }
                columns.append((column.name, kind))
            }
            for column in target where column.name != "rowid" && !table.columns.contains(where: { $0.name == column.name }) {
                differences.append("SQLite has no column \(table.name).\(column.name)")
            }
            let identities = target.filter(\.isIdentity).map(\.name)
            let positions = columns.indices.filter { identities.contains(columns[$0].name) }
            plan.append(CopyTable(source: table, withRowid: withRowid, columns: columns, identityPositions: positions))
        }
        for table in byTable.keys.sorted() { differences.append("SQLite has no table \(table)") }
        return differences.isEmpty ? .success(plan) : .failure(.schemaMismatch(differences))
    }
}
