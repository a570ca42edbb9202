import EventLoop
import Postgres
import Relaydeck
import SQLite

/// `relaydeckd migrate-to-postgres`: a SQLite store, read as one snapshot, copied into an
/// empty PostgreSQL database in one transaction, and checked before it commits.
///
/// In order: the file must be at this binary's schema version (`check(source:)`); the
/// database is migrated (`PostgresMigrator`); the two schemas must match table for table and
/// column for column (`CopyPlan`); then one transaction: every table locked with its user
/// triggers off (`ALTER TABLE ... DISABLE TRIGGER USER`: the storage quota's counts are
/// copied as they are, not counted again), every table must be empty but for the rows the
/// migrations put in (`PostgresSchema.seededRows`, replaced by the file's), the rows go in as
/// parameterized INSERTs in pipelined batches (`Limits`), each identity's sequence is set past
/// the largest number copied (and past `sqlite_sequence`), the triggers are on again, and per
/// table the row count and checksum (`TableChecksum`) of PostgreSQL must equal those of the
/// rows read. Only then COMMIT; on any difference or failure, ROLLBACK. A copy killed
/// half-way leaves the database as the migrations left it.
///
/// Loop thread only; the snapshot and the connection are the caller's.
public final class StoreCopy {
    public struct Limits: Sendable {
        /// The values of one batch's rows, about (a larger row goes alone).
        public var maxBatchBytes = 4 << 20
        public var maxRowsPerBatch = 10_000
        /// Batches sent and not answered yet: bounds the memory while the server works.
        public var maxBatchesInFlight = 4

        public init() {}
    }

    /// One table's count, as it was copied and checked.
    public struct TableCopied: Sendable, Equatable {
        public let table: String
        public let rows: Int64
    }

    let snapshot: SQLiteSnapshot
    let connection: PostgresConnection
    let loop: EventLoop
    let limits: Limits
    /// The migrations the database needed (none when it was up to date), once applied.
    public var onMigrated: (([PostgresMigration]) -> Void)?
    /// Each table once its last batch is answered, in the order copied.
    public var onTableCopied: ((TableCopied) -> Void)?

    var completion: ((Result<[TableCopied], StoreCopyError>) -> Void)?
    var plan: [CopyTable] = []
    var tallies: [Tally] = []
    /// The table being read and its rows; `next` counts them for an error's message.
    var tableIndex = 0
    var reader: SQLiteRows?
    var rowNumber: Int64 = 0
    var readingDone = false
    var batchesSent = 0
    var batchesAnswered = 0
    /// Tables read to the end, with the number of their last batch (-1: none), not reported yet.
    var readTables: [(index: Int, lastBatch: Int)] = []
    var reported: [TableCopied] = []
    var failed = false

    struct Tally {
        var checksum = TableChecksum()
        /// The largest value copied into each identity column (by position in the table's columns).
        var largest: [Int: Int64] = [:]
    }

    public init(snapshot: SQLiteSnapshot, connection: PostgresConnection, loop: EventLoop, limits: Limits = Limits()) {
        self.snapshot = snapshot
        self.connection = connection
        self.loop = loop
        self.limits = limits
    }

    /// Refuses a file at another schema version than this binary's.
    public static func check(source: SQLiteSnapshot) throws(StoreCopyError) {
        if source.version < Schema.version { throw .sourceOutdated(found: source.version, current: Schema.version) }
        if source.version > Schema.version { throw .sourceNewer(found: source.version, current: Schema.version) }
    }

    /// Runs once; `completion` gets each table's count once committed, or why nothing was.
    public func run(completion: @escaping (Result<[TableCopied], StoreCopyError>) -> Void) {
        precondition(self.completion == nil, "a StoreCopy runs once")
        self.completion = completion
        do {
            try Self.check(source: snapshot)
        } catch {
            return finish(.failure(error))
        }
        let migrator = PostgresMigrator(connection: connection, loop: loop)
        migrator.migrate { result in
            switch result {
            case .success(let applied):
                self.onMigrated?(applied)
                self.readTargetSchema()
            case .failure(let error): self.finish(.failure(.migration(error)))
            }
        }
    }

    // MARK: Before the copy

    private func readTargetSchema() {
        connection.query(PostgresColumn.sql) { result in
            do throws(PostgresError) {
                let columns = try result.get().rows.map { row throws(PostgresError) in
                    PostgresColumn(table: try row.text("table_name"), name: try row.text("column_name"),
                                   dataType: try row.text("data_type"), isIdentity: try row.text("is_identity") == "YES")
                }
                switch CopyPlan.tables(sqlite: self.snapshot.tables, postgres: columns) {
                case .success(let plan):
                    self.plan = plan
                    self.tallies = Array(repeating: Tally(), count: plan.count)
                    self.begin()
                case .failure(let error):
                    self.finish(.failure(error))
                }
            } catch {
                self.finish(.failure(.postgres(error)))
            }
        }
    }

    /// BEGIN, every table locked with its triggers off, and whether each is empty, checked
    /// inside the transaction: no other copy can fill a table between the check and the copy.
    private func begin() {
        var statements: [PostgresQuery] = [.begin]
        statements += plan.map { PostgresQuery("ALTER TABLE \(SQLiteSnapshot.quoted($0.name)) DISABLE TRIGGER USER") }
        statements += plan.map { table in
            let seeded = PostgresSchema.seededRows[table.name].map { " WHERE NOT (\($0))" } ?? ""
            return PostgresQuery("SELECT EXISTS (SELECT 1 FROM \(SQLiteSnapshot.quoted(table.name))\(seeded)) AS taken")
        }
        let firstCheck = 1 + plan.count
        connection.run(statements) { result in
            do throws(PostgresError) {
                let batch = try result.get()
                if let error = batch.firstError { return self.fail(.postgres(error)) }
                var taken: [String] = []
                for (index, table) in self.plan.enumerated() where try batch.result(firstCheck + index).rows.first?.bool("taken") == true {
                    taken.append(table.name)
                }
                guard taken.isEmpty else { return self.fail(.targetNotEmpty(taken)) }
                // The migrations' own rows make way for the file's.
                let seeded = self.plan.filter { PostgresSchema.seededRows[$0.name] != nil }
                if !seeded.isEmpty {
                    self.send(seeded.map { PostgresQuery("DELETE FROM \(SQLiteSnapshot.quoted($0.name))") })
                }
                self.pump()
            } catch {
                self.fail(.postgres(error))
            }
        }
    }

    // MARK: The end

    /// Every row sent and stored: the sequences, the triggers, then the check.
    func afterCopy() {
        var statements: [PostgresQuery] = []
        for (index, table) in plan.enumerated() {
            for position in table.identityPositions {
                let floor = max(tallies[index].largest[position] ?? 0, snapshot.sequences[table.name] ?? 0)
                guard floor > 0 else { continue }
                statements.append(PostgresQuery("SELECT setval(pg_get_serial_sequence($1, $2), $3)",
                                                [.text(SQLiteSnapshot.quoted(table.name)), .text(table.columns[position].name), .integer(floor)]))
            }
        }
        statements += plan.map { PostgresQuery("ALTER TABLE \(SQLiteSnapshot.quoted($0.name)) ENABLE TRIGGER USER") }
        let firstCheck = statements.count
        statements += plan.map { PostgresQuery($0.checksumSQL) }
        connection.run(statements) { result in
            do throws(PostgresError) {
                let batch = try result.get()
                if let error = batch.firstError { return self.fail(.postgres(error)) }
                var differences: [StoreCopyError.TableDifference] = []
                for (index, table) in self.plan.enumerated() {
                    guard let row = try batch.result(firstCheck + index).rows.first,
                          let sum = Int128(try row.text("checksum")) else {
                        throw PostgresError(.mismatch, "no checksum of \(table.name)")
                    }
                    let found = TableChecksum(rows: try row.int64("row_count"), sum: sum)
                    if found != self.tallies[index].checksum {
                        differences.append(.init(table: table.name, expected: self.tallies[index].checksum, found: found))
                    }
                }
                guard differences.isEmpty else { return self.fail(.verificationFailed(differences)) }
                self.commit()
            } catch {
                self.fail(.postgres(error))
            }
        }
    }

    private func commit() {
        connection.run([.commit]) { result in
            switch result.flatMap({ batch in Result { () throws(PostgresError) in try batch.result(0) } }) {
            case .success: self.finish(.success(self.reported))
            case .failure(let error): self.fail(.postgres(error))
            }
        }
    }

    /// Rolls the transaction back (after whatever is in flight: the answers come in order),
    /// then reports the first failure.
    func fail(_ error: StoreCopyError) {
        guard !failed else { return }
        failed = true
        guard connection.isOpen else { return finish(.failure(error)) }
        connection.run([.rollback]) { _ in self.finish(.failure(error)) }
    }

    private func finish(_ result: Result<[TableCopied], StoreCopyError>) {
        guard let completion else { return }
        self.completion = nil
        reader = nil
        completion(result)
    }
}
