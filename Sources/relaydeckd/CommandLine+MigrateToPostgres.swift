import EventLoop
import Postgres
import PostgresStore

/// `relaydeckd migrate-to-postgres --from FILE [--to URL]`: the SQLite store copied into an
/// empty PostgreSQL database (`StoreCopy`), for an install moving to PostgreSQL. It works
/// while `DATABASE_URL` is set (it is where the copy goes unless `--to` says otherwise), which
/// the server and the store's other commands still refuse.
extension CommandLine {
    static let migrateToPostgresUsage = """
        usage: relaydeckd migrate-to-postgres --from FILE [--to URL]

        Copies the SQLite store FILE into an empty PostgreSQL database: URL, else DATABASE_URL
        (or DATABASE_URL_FILE, or the credential). Stop the server first. FILE must be at this
        relaydeckd's schema version. The database is migrated, every table is copied in one
        transaction, and it commits only if each table's row count and checksum in PostgreSQL
        equal the file's. A line per table goes to stderr; the password is never printed.
        Exit 0 when copied, 1 when refused or failed (nothing is copied), 2 for a usage mistake.
        """

    static func migrateToPostgres(_ arguments: [String], output: (String) -> Void = { print($0) }) -> Int32 {
        guard let options = Options(arguments, ["--from", "--to"]), let file = options["--from"], !file.isEmpty else {
            printError(migrateToPostgresUsage)
            return 2
        }
        // The installed system's settings, and its user when run as root: the file's -shm
        // (which SQLite may make for a reader) must stay the service's.
        guard let config = operatorConfig() else { return 1 }
        let settings: PostgresSettings
        if let url = options["--to"] {
            do {
                settings = try PostgresSettings.parse(url)
            } catch {
                printError("migrate-to-postgres: --to: \(error.message)")
                return 2
            }
        } else if let configured = config.databaseURL {
            settings = configured
        } else {
            printError("migrate-to-postgres: no --to URL, and DATABASE_URL is not set: say where to copy to")
            return 2
        }
        let snapshot: SQLiteSnapshot
        do {
            snapshot = try SQLiteSnapshot(path: file)
        } catch {
            printError("migrate-to-postgres: \(file): \(error)")
            return 1
        }
        defer { snapshot.close() }
        do {
            try StoreCopy.check(source: snapshot)
        } catch {
            printError("migrate-to-postgres: \(file): \(error)")
            return 1
        }
        switch copy(snapshot, to: settings) {
        case .success(let tables):
            let rows = tables.reduce(0) { $0 + $1.rows }
            output("copied \(rows) row\(rows == 1 ? "" : "s") of \(tables.count) tables from \(file) to \(settings.redacted); "
                   + "every table's row count and checksum match")
            return 0
        case .failure(let failure):
            printError("migrate-to-postgres: \(failure.message)")
            return 1
        }
    }

    struct CopyFailure: Error {
        let message: String
    }

    /// Connects, copies, and turns the loop until the copy is done (committed or rolled back).
    private static func copy(_ snapshot: SQLiteSnapshot, to settings: PostgresSettings) -> Result<[StoreCopy.TableCopied], CopyFailure> {
        let loop: EventLoop
        let connector: PostgresConnector
        // A table's check (a checksum over every row) may take longer than a request would.
        var limits = PostgresLimits()
        limits.queryTimeout = .seconds(900)
        do {
            loop = try EventLoop()
            connector = try PostgresConnector(settings: settings, limits: limits, loop: loop)
        } catch {
            return .failure(CopyFailure(message: "\(settings.redacted): \(error)"))
        }
        var outcome: Result<[StoreCopy.TableCopied], CopyFailure>?
        var connection: PostgresConnection?
        connector.connect { result in
            switch result {
            case .failure(let error):
                outcome = .failure(CopyFailure(message: "cannot connect to \(settings.redacted): \(error)"))
            case .success(let opened):
                connection = opened
                let copy = StoreCopy(snapshot: snapshot, connection: opened, loop: loop)
                copy.onMigrated = { applied in
                    printError(applied.isEmpty ? "migrate-to-postgres: the database's schema is up to date (version \(PostgresSchema.version))"
                               : "migrate-to-postgres: applied \(applied.count) schema migrations (up to version \(PostgresSchema.version))")
                }
                copy.onTableCopied = { printError("migrate-to-postgres: copied \($0.table): \($0.rows) row\($0.rows == 1 ? "" : "s")") }
                copy.run { result in
                    outcome = result.mapError { CopyFailure(message: $0.description) }
                }
            }
        }
        loop.run { outcome != nil }
        connection?.close()
        return outcome!
    }
}
