import EventLoop
import Postgres

/// Brings a PostgreSQL database's schema up to date with `PostgresSchema.migrations`, as
/// `SQLite.Migrator` does a file's: each migration in one transaction with its row of
/// `schema_migrations` (PostgreSQL has no `user_version`), so a failed one leaves the
/// database at the one before, with the earlier ones kept.
///
/// Several nodes may start together on one database: the migrator holds a session advisory
/// lock (`lockKey`) from before it reads the history until after the last migration, so one
/// of them migrates and the others find the history complete. It asks for the lock with
/// `pg_try_advisory_lock` every 100 ms rather than waiting in `pg_advisory_lock`, so that a
/// long migration on another node never runs into this connection's batch deadline.
///
/// It refuses, before changing anything: a server older than PostgreSQL 11, a database whose
/// encoding is not UTF8, a history newer than this binary or naming other migrations, and
/// tables without a history (another program's database).
///
/// Loop thread only; the connection is the caller's and stays open.
public final class PostgresMigrator {
    /// The advisory lock's key: "rdschema" in ASCII, so that no other program's is likely the same.
    public static let lockKey: Int64 = 0x7264_7363_6865_6D61
    /// `server_version_num` of PostgreSQL 11.0.
    public static let minimumServerVersion: Int64 = 110_000

    private let connection: PostgresConnection
    private let loop: EventLoop
    private let migrations: [PostgresMigration]
    /// How long another node's lock is waited for.
    public var lockWait = TimeSpan.seconds(300)

    private var completion: ((Result<[PostgresMigration], PostgresMigrationError>) -> Void)?
    private var lockDeadline: Instant?
    private var locked = false
    private var pending: ArraySlice<PostgresMigration> = []
    private var applied: [PostgresMigration] = []

    public init(connection: PostgresConnection, loop: EventLoop, migrations: [PostgresMigration] = PostgresSchema.migrations) {
        for (offset, migration) in migrations.enumerated() {
            precondition(migration.version == offset + 1, "PostgreSQL migration \(migration.version) is out of order")
        }
        self.connection = connection
        self.loop = loop
        self.migrations = migrations
    }

    /// Runs once; `completion` gets the migrations applied now (none when the database was
    /// up to date), in order, or why not.
    public func migrate(completion: @escaping (Result<[PostgresMigration], PostgresMigrationError>) -> Void) {
        precondition(self.completion == nil, "a PostgresMigrator runs once")
        self.completion = completion
        checkServer()
    }

    enum SQL {
        static let server = """
            SELECT current_setting('server_version_num')::int8 AS version_num, current_setting('server_version') AS version, \
            current_setting('server_encoding') AS encoding
            """
        static let tryLock = "SELECT pg_try_advisory_lock($1) AS locked"
        static let unlock = "SELECT pg_advisory_unlock($1) AS unlocked"
        static let tables = """
            SELECT count(*) FILTER (WHERE tablename <> 'schema_migrations') AS tables, \
            count(*) FILTER (WHERE tablename = 'schema_migrations') AS history \
            FROM pg_tables WHERE schemaname = current_schema()
            """
        static let createHistory = """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version BIGINT PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """
        static let history = "SELECT version, name FROM schema_migrations ORDER BY version"
        static let record = "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)"
    }

    // MARK: The steps, in order

    private func checkServer() {
        connection.query(SQL.server) { result in
            self.step(result) { rows throws(PostgresError) in
                guard let row = rows.first else { throw PostgresError(.mismatch, "no row of the server's settings") }
                if let refusal = Self.serverRefusal(versionNumber: try row.int64("version_num"), version: try row.text("version"),
                                                    encoding: try row.text("encoding")) {
                    self.finish(.failure(refusal))
                } else {
                    self.lock()
                }
            }
        }
    }

    private func lock() {
        let deadline = lockDeadline ?? loop.now + lockWait
        lockDeadline = deadline
        connection.query(SQL.tryLock, [.integer(Self.lockKey)]) { result in
            self.step(result) { rows throws(PostgresError) in
                if try rows.first?.bool("locked") == true {
                    self.locked = true
                    self.readHistory()
                } else if self.loop.now >= deadline {
                    self.finish(.failure(.lockTimedOut(milliseconds: self.lockWait.milliseconds)))
                } else {
                    self.loop.schedule(after: .milliseconds(100)) { self.lock() }
                }
            }
        }
    }

    private func readHistory() {
        connection.query(SQL.tables) { result in
            self.step(result) { rows throws(PostgresError) in
                let tables = try rows.first?.int64("tables") ?? 0
                let history = try rows.first?.int64("history") ?? 0
                guard history > 0 || tables == 0 else {
                    self.finish(.failure(.foreignTables(count: Int(tables))))
                    return
                }
                self.connection.run([PostgresQuery(SQL.createHistory), PostgresQuery(SQL.history)]) { result in
                    self.step(result.flatMap { batch in Result { () throws(PostgresError) in try batch.result(1) } }) { rows throws(PostgresError) in
                        var entries: [(version: Int, name: String)] = []
                        for row in rows { entries.append((Int(try row.int64("version")), try row.text("name"))) }
                        switch Result(catching: { () throws(PostgresMigrationError) in try Self.pending(entries, self.migrations) }) {
                        case .success(let pending):
                            self.pending = pending
                            self.applyNext()
                        case .failure(let refusal):
                            self.finish(.failure(refusal))
                        }
                    }
                }
            }
        }
    }

    private func applyNext() {
        guard let migration = pending.first else {
            finish(.success(applied))
            return
        }
        pending = pending.dropFirst()
        let statements = [PostgresQuery.begin] + migration.statements.map { PostgresQuery($0) }
            + [PostgresQuery(SQL.record, [.integer(Int64(migration.version)), .text(migration.name)]), .commit]
        connection.run(statements) { result in
            let failure: PostgresError?
            switch result {
            case .failure(let error): failure = error
            case .success(let batch): failure = batch.firstError
            }
            guard let failure else {
                self.applied.append(migration)
                self.applyNext()
                return
            }
            // The transaction failed: every statement fails until its ROLLBACK.
            self.rollBack {
                self.finish(.failure(.migrationFailed(version: migration.version, name: migration.name, failure)))
            }
        }
    }

    // MARK: Decisions, without a connection

    /// Why the server or the database cannot hold the schema, if it cannot.
    static func serverRefusal(versionNumber: Int64, version: String, encoding: String) -> PostgresMigrationError? {
        if versionNumber < minimumServerVersion { return .serverTooOld(version: version) }
        if encoding != "UTF8" { return .notUTF8(encoding: encoding) }
        return nil
    }

    /// The migrations a database with `history` (ordered by version) still needs, or why it
    /// cannot be migrated by this binary.
    static func pending(_ history: [(version: Int, name: String)], _ migrations: [PostgresMigration])
        throws(PostgresMigrationError) -> ArraySlice<PostgresMigration> {
        if let newest = history.last, newest.version > migrations.count {
            throw .newerSchema(found: newest.version, known: migrations.count)
        }
        for (index, entry) in history.enumerated() {
            guard entry.version == index + 1 else { throw .unknownEntry(version: entry.version, name: entry.name) }
            let expected = migrations[index].name
            guard entry.name == expected else {
                throw .mismatchedEntry(version: entry.version, found: entry.name, expected: expected)
            }
        }
        return migrations.dropFirst(history.count)
    }

    // MARK: Plumbing

    /// Runs `body` on a statement's rows; a failed statement, or a row that does not read,
    /// ends the migration.
    private func step(_ result: Result<QueryResult, PostgresError>, _ body: ([PostgresRow]) throws(PostgresError) -> Void) {
        do {
            try body(try result.get().rows)
        } catch {
            finish(.failure(.failed(error)))
        }
    }

    private func rollBack(then next: @escaping () -> Void) {
        guard connection.isOpen else { return next() }
        connection.run([.rollback]) { _ in next() }
    }

    /// Gives the lock back (a lost connection has given it back already), then the result.
    private func finish(_ result: Result<[PostgresMigration], PostgresMigrationError>) {
        guard let completion else { return }
        self.completion = nil
        guard locked, connection.isOpen else {
            completion(result)
            return
        }
        locked = false
        connection.query(SQL.unlock, [.integer(Self.lockKey)]) { _ in completion(result) }
    }
}
