import SQLite

/// A value bound to a parameter of a session's statement, whichever the dialect: SQLite's five
/// storage classes. `PostgresSession` sends `.real` as `float8` text and `.blob` as `bytea`; a
/// boolean is the integer 0 or 1 in both, as the schema keeps it (`true` and `false` literals
/// make those integers). Two values do not survive PostgreSQL as they do SQLite: a NaN
/// (SQLite stores NULL) and a text holding NUL (PostgreSQL's text refuses it).
public typealias StoreValue = SQLiteValue

/// Which database a session speaks to, for the few statements written once per dialect.
public enum StoreDialect: Sendable {
    case sqlite, postgres

    /// What a read of rows that several writers may want ends with: in PostgreSQL each row is
    /// this transaction's until its COMMIT, and another's passes over it (`FOR UPDATE SKIP
    /// LOCKED`); nothing in SQLite, which has one writer.
    var skipLocked: String { self == .postgres ? " FOR UPDATE SKIP LOCKED" : "" }
}

/// A row of a session's result, read by column name. A name the result does not have, a NULL
/// where a value must be, or a value of another type throws (the dialect's own error), never
/// an empty string or a zero.
public protocol StoreRow {
    func text(_ name: String) throws -> String
    func optionalText(_ name: String) throws -> String?
    func int64(_ name: String) throws -> Int64
    func optionalInt64(_ name: String) throws -> Int64?
    func int(_ name: String) throws -> Int
    /// An integer column holding 0 or 1 (both schemas keep booleans so); PostgreSQL's own
    /// `boolean` reads too. Any other integer throws.
    func bool(_ name: String) throws -> Bool
    func blob(_ name: String) throws -> [UInt8]
    func optionalBlob(_ name: String) throws -> [UInt8]?
    /// A floating-point column (SQLite's REAL, PostgreSQL's `float4`/`float8`); an integer
    /// column throws, as does PostgreSQL's `numeric`, which the client does not read.
    func double(_ name: String) throws -> Double
    func isNull(_ name: String) throws -> Bool
}

/// The statements of the store, on one connection of either dialect: what the services need
/// to read and write, and the transaction around it. Each call awaits its statement; with
/// SQLite every await returns at once, with PostgreSQL the task waits on the loop for the
/// server's answer. Loop thread only; not Sendable.
///
/// Parameters are written `$1`, `$2`, ... in both dialects. SQLite takes `$N` as a named
/// parameter whose index is where its name first appears, so the same SQL binds the same
/// values in both only when the parameters first appear in numeric order: `$1 ... $2 ... $1`
/// does, `$2 ... $1` does not (it would bind the first value to `$2` in SQLite). Debug builds
/// check each statement against that rule in both dialects (`ParameterOrder`).
///
/// Errors are the dialect's own (`SQLiteError`, `PostgresError`), unchanged: the store that
/// owns the connection translates them, as `Store.translate` does. A decoder's error passes
/// as it is. Only a session used against its own rules throws `StoreSessionError`.
public protocol StoreSession: AnyObject {
    var dialect: StoreDialect { get }

    /// Every row of `sql`, decoded in the statement's order.
    func rows<T>(_ sql: String, _ values: [StoreValue], _ decode: (any StoreRow) throws -> T) async throws -> [T]
    /// The rows of `sql` up to and including the first for which `stop` is true: a page read
    /// stops stepping there (SQLite), or what came is cut there (PostgreSQL).
    func rows<T>(_ sql: String, _ values: [StoreValue], through stop: (T) -> Bool,
                 _ decode: (any StoreRow) throws -> T) async throws -> [T]
    /// The first row of `sql`, decoded; nil when there is none.
    func firstRow<T>(_ sql: String, _ values: [StoreValue], _ decode: (any StoreRow) throws -> T) async throws -> T?
    /// Runs `sql` to its end and returns the rows an INSERT, UPDATE or DELETE changed (for any
    /// other statement the count means nothing).
    @discardableResult
    func run(_ sql: String, _ values: [StoreValue]) async throws -> Int
    /// One statement without parameters.
    func execute(_ sql: String) async throws

    /// BEGIN (SQLite's IMMEDIATE: the write lock at once). Inside a transaction it throws.
    func begin() async throws
    /// COMMIT, savepoints still open included. When it throws, nothing was committed and the
    /// transaction is over.
    func commit() async throws
    /// ROLLBACK of the whole transaction; the transaction is over even when it throws.
    func rollback() async throws
    /// SAVEPOINT, named by its depth (`sp1`, `sp2`, ...); only inside a transaction. Each is
    /// ended by one `releaseSavepoint` or `rollbackToSavepoint`, innermost first.
    func savepoint() async throws
    /// RELEASE of the innermost savepoint: its changes join the level around it.
    func releaseSavepoint() async throws
    /// Undoes what was done since the innermost savepoint and ends it (ROLLBACK TO, then
    /// RELEASE); the transaction goes on, even after a statement of PostgreSQL's failed in it.
    func rollbackToSavepoint() async throws
}

extension StoreSession {
    public func rows<T>(_ sql: String, _ values: [StoreValue], through stop: (T) -> Bool,
                        _ decode: (any StoreRow) throws -> T) async throws -> [T] {
        let all = try await rows(sql, values, decode)
        guard let end = all.firstIndex(where: stop) else { return all }
        return Array(all[...end])
    }

    /// Whether `sql` (a `SELECT 1 ...`) gives a row for `values`.
    public func exists(_ sql: String, _ values: StoreValue...) async throws -> Bool {
        try await firstRow(sql, values) { _ in true } ?? false
    }

    /// The `n` column of the one row of `sql` (a `SELECT count(*) AS n ...`).
    public func count(_ sql: String, _ values: StoreValue...) async throws -> Int {
        try await firstRow(sql, values) { try $0.int("n") } ?? 0
    }

    public func rows<T>(_ sql: String, _ values: StoreValue..., decode: (any StoreRow) throws -> T) async throws -> [T] {
        try await rows(sql, values, decode)
    }

    public func firstRow<T>(_ sql: String, _ values: StoreValue..., decode: (any StoreRow) throws -> T) async throws -> T? {
        try await firstRow(sql, values, decode)
    }

    @discardableResult
    public func run(_ sql: String, _ values: StoreValue...) async throws -> Int {
        try await run(sql, values)
    }
}
