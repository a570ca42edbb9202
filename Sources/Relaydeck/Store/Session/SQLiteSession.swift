import SQLite

/// A `StoreSession` over a SQLite `Database`: each statement comes from the connection's
/// cache, runs to its end and is reset before the call returns, so every await returns at
/// once and a task of SQLite statements never suspends. The rows come from `Database.rows`
/// with no allocation of the session's per row (a `Row` is one reference, held inline in
/// `any StoreRow`); what a statement costs more is the decoder called unspecialized through
/// the existential: measured in a release build, about 0.2 µs a statement and 65 ns a row of
/// four columns. Loop thread only; not Sendable.
public final class SQLiteSession: StoreSession {
    public let database: Database
    private var nesting = TransactionNesting()

    public init(_ database: Database) {
        self.database = database
    }

    public var dialect: StoreDialect { .sqlite }

    public func rows<T>(_ sql: String, _ values: [StoreValue], _ decode: (any StoreRow) throws -> T) async throws -> [T] {
        #if DEBUG
        try ParameterOrder.check(sql)
        #endif
        return try database.rows(sql, values) { try decode($0) }
    }

    public func rows<T>(_ sql: String, _ values: [StoreValue], through stop: (T) -> Bool,
                        _ decode: (any StoreRow) throws -> T) async throws -> [T] {
        #if DEBUG
        try ParameterOrder.check(sql)
        #endif
        return try database.rows(sql, values, through: stop) { try decode($0) }
    }

    public func firstRow<T>(_ sql: String, _ values: [StoreValue], _ decode: (any StoreRow) throws -> T) async throws -> T? {
        #if DEBUG
        try ParameterOrder.check(sql)
        #endif
        return try database.firstRow(sql, values) { try decode($0) }
    }

    @discardableResult
    public func run(_ sql: String, _ values: [StoreValue]) async throws -> Int {
        #if DEBUG
        try ParameterOrder.check(sql)
        #endif
        let statement = try database.statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() {}
        return database.changes
    }

    public func execute(_ sql: String) async throws {
        try await run(sql, [])
    }

    public func begin() async throws {
        try nesting.checkCanBegin()
        try database.begin(.immediate)
        nesting.began()
    }

    /// `Database.commit`: a failed COMMIT rolls the rest back, so it throws with nothing kept.
    public func commit() async throws {
        try nesting.checkInTransaction("COMMIT")
        defer { nesting.ended() }
        try database.commit()
    }

    /// `Database.rollBackAll`, which does not throw: a ROLLBACK that fails leaves the
    /// connection to roll back before its next BEGIN.
    public func rollback() async throws {
        try nesting.checkInTransaction("ROLLBACK")
        nesting.ended()
        database.rollBackAll()
    }

    public func savepoint() async throws {
        let name = try nesting.nextSavepoint()
        // After SQLite rolled the transaction back on its own (on SQLITE_FULL, IOERR, BUSY or
        // NOMEM), SAVEPOINT would begin a new one that RELEASE commits: refuse as
        // `Database.transaction` does.
        guard database.isInTransaction else { throw Self.rolledBack }
        try database.statement("SAVEPOINT \(name)").run()
        nesting.savepointOpened()
    }

    public func releaseSavepoint() async throws {
        let name = try nesting.innermostSavepoint()
        try database.statement("RELEASE \(name)").run()
        nesting.savepointEnded()
    }

    public func rollbackToSavepoint() async throws {
        let name = try nesting.innermostSavepoint()
        try database.statement("ROLLBACK TO \(name)").run()
        try database.statement("RELEASE \(name)").run()
        nesting.savepointEnded()
    }

    /// SQLITE_ABORT_ROLLBACK (the extended codes are macros the domain does not import).
    private static let rolledBack = SQLiteError(
        code: 4 | (2 << 8), message: "the transaction was rolled back by SQLite after an earlier error")
}

@available(*, unavailable, message: "a session belongs to the loop thread, as its Database does")
extension SQLiteSession: Sendable {}
