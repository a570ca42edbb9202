import EventLoop
import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// A store session of either dialect for one test: SQLite on a file of its own, PostgreSQL on a
/// fresh database of the shared test cluster. The test's async code runs as a task on the
/// loop's thread (`EventLoop.startTask`), as the services will, and the loop turns until it
/// ends (60 s at most: a bound against a hang, not a measure).
final class SessionHarness {
    let loop: EventLoop
    let session: any StoreSession
    /// PostgreSQL's driver, which keeps the connections open; nil for SQLite.
    let driver: StoreTestDriver?
    private let directory: TemporaryDirectory?

    init(_ dialect: StoreDialect) throws {
        switch dialect {
        case .sqlite:
            let directory = TemporaryDirectory()
            loop = try EventLoop()
            session = SQLiteSession(try Database(path: directory.file("session.db")))
            driver = nil
            self.directory = directory
        case .postgres:
            let driver = try StoreTestDriver()
            loop = driver.loop
            session = PostgresSession(try driver.freshDatabase())
            self.driver = driver
            directory = nil
        }
    }

    /// A harness with the test table made (`ItemsTable`).
    static func withItems(_ dialect: StoreDialect) throws -> SessionHarness {
        let harness = try SessionHarness(dialect)
        try harness.run { try await $0.execute(ItemsTable.create($0.dialect)) }
        return harness
    }

    /// `body` as a task on the loop, its value or its error once it ended.
    @discardableResult
    func run<T>(_ body: @escaping (any StoreSession) async throws -> T) throws -> T {
        var outcome: Result<T, any Error>?
        let session = session
        loop.startTask {
            do {
                outcome = .success(try await body(session))
            } catch {
                outcome = .failure(error)
            }
        }
        loop.run(until: { outcome != nil }, within: .seconds(60))
        return try #require(outcome, "the task did not end within 60 s").get()
    }
}

/// The table the session tests write, in each dialect's types: texts compared by their bytes
/// in both (SQLite's BINARY, PostgreSQL's `COLLATE "C"`, as the store's schema does).
enum ItemsTable {
    static func create(_ dialect: StoreDialect) -> String {
        switch dialect {
        case .sqlite:
            """
            CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, amount INTEGER, ratio REAL, data BLOB, \
            flag INTEGER, code TEXT UNIQUE) STRICT
            """
        case .postgres:
            """
            CREATE TABLE items (id BIGINT PRIMARY KEY, name TEXT COLLATE "C", amount BIGINT, ratio DOUBLE PRECISION, \
            data BYTEA, flag BIGINT, code TEXT COLLATE "C" UNIQUE)
            """
        }
    }

    static let insertID = "INSERT INTO items (id) VALUES ($1)"
    static let insertName = "INSERT INTO items (id, name) VALUES ($1, $2)"
    static let ids = "SELECT id FROM items ORDER BY id"
}

/// Whether `error` is the dialect's own error for a broken constraint.
func isConstraintViolation(_ error: any Error, _ dialect: StoreDialect) -> Bool {
    switch (dialect, error) {
    case (.sqlite, let error as SQLiteError): error.isConstraintViolation
    case (.postgres, let error as PostgresError): error.isConstraintViolation
    default: false
    }
}

/// Whether `error` is the dialect's own error (a database's, not the session's).
func isNativeError(_ error: any Error, _ dialect: StoreDialect) -> Bool {
    switch dialect {
    case .sqlite: error is SQLiteError
    case .postgres: error is PostgresError
    }
}
