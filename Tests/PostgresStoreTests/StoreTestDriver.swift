#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// A test's loop, and databases of its own on the shared test cluster (`PostgresCluster`), or
/// on a cluster of the test's own when it stops the server: each test makes new ones, so
/// tests running at once never see each other's tables. Turns the loop until a result is in,
/// 60 s at most (a bound against a hang, not a measure).
final class StoreTestDriver {
    let cluster: PostgresCluster
    let loop: EventLoop
    private var connections: [PostgresConnection] = []

    init(cluster: PostgresCluster = .shared) throws {
        self.cluster = cluster
        // A written socket whose peer is gone must give EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)
        loop = try EventLoop()
    }

    deinit {
        for connection in connections { connection.close() }
    }

    func run(until done: () -> Bool) {
        loop.run(until: done, within: .seconds(60))
    }

    /// The result `start` hands to its callback, waited for on the loop.
    func wait<T>(_ start: (@escaping (T) -> Void) -> Void) throws -> T {
        var result: T?
        start { result = $0 }
        run { result != nil }
        return try #require(result, "no result within 60 s")
    }

    /// Settings for `user` on `database` over loopback TCP.
    func settings(database: String, user: String = "rd_scram") -> PostgresSettings {
        PostgresSettings(endpoint: .tcp(host: "127.0.0.1", port: cluster.port), user: user,
                         password: PostgresCluster.passwords[user], database: database, sslMode: .disable)
    }

    func open(_ database: String, user: String = "rd_scram") throws -> PostgresConnection {
        let connector = try PostgresConnector(settings: settings(database: database, user: user), loop: loop)
        let connection = try wait { connector.connect(completion: $0) }.get()
        connections.append(connection)
        return connection
    }

    /// A new, empty database owned by `rd_scram` (`template0` for an encoding other than the
    /// cluster's UTF8), and its name.
    func createDatabase(encoding: String = "UTF8") throws -> String {
        let name = "rd_store_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try open("postgres", user: "rd_admin")
        defer { admin.close() }
        _ = try query(admin, "CREATE DATABASE \(name) OWNER rd_scram ENCODING '\(encoding)' TEMPLATE template0")
        return name
    }

    /// A new database and a connection to it.
    func freshDatabase(encoding: String = "UTF8") throws -> PostgresConnection {
        try open(try createDatabase(encoding: encoding))
    }

    func query(_ connection: PostgresConnection, _ sql: String, _ values: [PostgresValue] = []) throws -> [PostgresRow] {
        try wait { connection.query(sql, values, completion: $0) }.get().rows
    }

    func run(_ connection: PostgresConnection, _ statements: [PostgresQuery]) throws -> BatchResult {
        try wait { connection.run(statements, completion: $0) }.get()
    }

    func migrate(_ connection: PostgresConnection, _ migrations: [PostgresMigration] = PostgresSchema.migrations,
                 lockWait: TimeSpan? = nil) throws -> Result<[PostgresMigration], PostgresMigrationError> {
        let migrator = PostgresMigrator(connection: connection, loop: loop, migrations: migrations)
        if let lockWait { migrator.lockWait = lockWait }
        return try wait { migrator.migrate(completion: $0) }
    }

    /// `schema_migrations` as (version, name).
    func history(_ connection: PostgresConnection) throws -> [HistoryEntry] {
        try query(connection, "SELECT version, name FROM schema_migrations ORDER BY version").map {
            HistoryEntry(version: Int(try $0.int64("version")), name: try $0.text("name"))
        }
    }
}

struct HistoryEntry: Equatable, CustomStringConvertible {
    let version: Int
    let name: String

    var description: String { "\(version) \(name)" }
}

extension Array where Element == PostgresMigration {
    var versions: [Int] { map(\.version) }
}

/// A SQLite store with the domain's migrations, 1 to `version`, in a temporary folder.
func sqliteStore(upTo version: Int = Schema.version, in directory: TemporaryDirectory) throws -> Database {
    let database = try Database(path: directory.file("store-\(UInt32.random(in: 0...UInt32.max)).db"))
    _ = try Migrator.migrate(database, Array(Schema.migrations.prefix(version)))
    return database
}
