import Postgres
import Relaydeck
import SQLite

/// A `StoreSession` over one `PostgresConnection`: each call sends its statements as one
/// batch and suspends its task until the connection's completion, which runs on the loop
/// thread; the task goes on there in the same turn (`LoopExecutor`). Transactions and
/// savepoints are SQL, a ROLLBACK TO and its RELEASE one batch. A BEGIN, a SAVEPOINT and a
/// RELEASE wait for the next statement and go first in its batch (`due`: a round trip fewer
/// each; the server takes the snapshot at the first statement either way, and a savepoint
/// marks nothing before its first statement); a transaction that ran none sends neither
/// BEGIN nor its COMMIT or ROLLBACK, a savepoint that ran none neither SAVEPOINT nor its end.
///
/// The session owns no connection: its owner opens it, closes it and translates its errors.
/// A closed connection fails each call at the end of the loop's turn (the connection's own
/// `.closed`, through `runSoon`), never leaves it waiting. Loop thread only; not Sendable.
public final class PostgresSession: StoreSession {
    public let connection: PostgresConnection
    private var nesting = TransactionNesting()
    /// What goes first in the next batch sent: the transaction's BEGIN, savepoints opened or
    /// released since the last batch.
    private var due: [Due] = []
    /// The transaction's BEGIN went to the server.
    private var transactionSent = false

    /// A statement that waits for the next batch.
    private enum Due: Equatable {
        case begin, savepoint(String), release(String)

        var query: PostgresQuery {
            switch self {
            case .begin: .begin
            case .savepoint(let name): .savepoint(name)
            case .release(let name): .releaseSavepoint(name)
            }
        }
    }

    public init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    public var dialect: StoreDialect { .postgres }

    public func rows<T>(_ sql: String, _ values: [StoreValue], _ decode: (any StoreRow) throws -> T) async throws -> [T] {
        let result = try await query(sql, values)
        var decoded: [T] = []
        decoded.reserveCapacity(result.rows.count)
        for row in result.rows { decoded.append(try decode(PostgresStoreRow(row, sql: sql))) }
        return decoded
    }

    public func firstRow<T>(_ sql: String, _ values: [StoreValue], _ decode: (any StoreRow) throws -> T) async throws -> T? {
        guard let row = try await query(sql, values).rows.first else { return nil }
        return try decode(PostgresStoreRow(row, sql: sql))
    }

    /// The count of the command tag (`UPDATE 3`); 0 for a command that counts nothing.
    @discardableResult
    public func run(_ sql: String, _ values: [StoreValue]) async throws -> Int {
        try await query(sql, values).rowsAffected ?? 0
    }

    public func execute(_ sql: String) async throws {
        _ = try await query(sql, [])
    }

    /// Sends nothing yet: BEGIN goes with the transaction's first statement.
    public func begin() async throws {
        try nesting.checkCanBegin()
        nesting.began()
        due = [.begin]
        transactionSent = false
    }

    /// A COMMIT of a transaction that had failed is answered `ROLLBACK`, which the
    /// connection turns into its error (`25P02`).
    public func commit() async throws {
        try nesting.checkInTransaction("COMMIT")
        defer { nesting.ended() }
        guard !endsUnsent() else { return }
        try await sendOne(.commit)
    }

    /// `sql` as the transaction's last statement, sent in one batch with its COMMIT: a round
    /// trip fewer, and whatever the statement locks is held a round trip shorter
    /// (`ChangeFeed.append`, the feed's head, which every recorded write waits for). When the
    /// statement fails the COMMIT is skipped and the transaction stays open for its ROLLBACK,
    /// as after any statement; when the COMMIT fails the transaction has ended.
    public func commit(after sql: String, _ values: [StoreValue]) async throws {
        try nesting.checkInTransaction("COMMIT")
        #if DEBUG
        try ParameterOrder.check(sql)
        #endif
        let outcomes = try await send([PostgresQuery(sql, values.map(Self.postgresValue)), .commit])
        _ = try outcomes[outcomes.startIndex].get()
        nesting.ended()
        _ = try outcomes[outcomes.startIndex + 1].get()
    }

    /// The savepoints' RELEASEs still due are dropped: the ROLLBACK ends them with the rest.
    public func rollback() async throws {
        try nesting.checkInTransaction("ROLLBACK")
        defer { nesting.ended() }
        guard !endsUnsent() else { return }
        due = []
        try await sendOne(.rollback)
    }

    /// Whether the transaction ends without a word to the server, its BEGIN never sent.
    private func endsUnsent() -> Bool {
        defer { due = [] }
        return !transactionSent
    }

    /// The savepoints open in the transaction now.
    public var savepointDepth: Int { nesting.savepoints }

    /// Sends nothing yet: SAVEPOINT goes with the next statement.
    public func savepoint() async throws {
        let name = try nesting.nextSavepoint()
        due.append(.savepoint(name))
        nesting.savepointOpened()
    }

    /// Sends nothing yet: RELEASE goes with the next statement (the COMMIT at the latest);
    /// a savepoint that ran nothing is not sent at all.
    public func releaseSavepoint() async throws {
        let name = try nesting.innermostSavepoint()
        if due.last == .savepoint(name) {
            due.removeLast()
        } else {
            due.append(.release(name))
        }
        nesting.savepointEnded()
    }

    /// At once when a statement ran in the savepoint (the transaction may be failed, and only
    /// this mends it); nothing when none did.
    public func rollbackToSavepoint() async throws {
        let name = try nesting.innermostSavepoint()
        defer { nesting.savepointEnded() }
        if due.last == .savepoint(name) {
            due.removeLast()
            return
        }
        for outcome in try await send([.rollbackToSavepoint(name), .releaseSavepoint(name)]) {
            _ = try outcome.get()
        }
    }

    private func sendOne(_ statement: PostgresQuery) async throws {
        let outcomes = try await send([statement])
        _ = try outcomes[outcomes.startIndex].get()
    }

    private func query(_ sql: String, _ values: [StoreValue]) async throws -> QueryResult {
        #if DEBUG
        try ParameterOrder.check(sql)
        #endif
        let outcomes = try await send([PostgresQuery(sql, values.map(Self.postgresValue))])
        return try outcomes[outcomes.startIndex].get()
    }

    /// What became of `statements`, sent as one batch, after what was due (sent first in the
    /// batch; a failure of theirs is thrown before `statements`' own, as those were skipped).
    private func send(_ statements: [PostgresQuery]) async throws -> ArraySlice<StatementOutcome> {
        guard !due.isEmpty else { return try await sendBatch(statements).outcomes[...] }
        let sent = due
        due = []
        if sent.first == .begin { transactionSent = true }
        let batch = try await sendBatch(sent.map(\.query) + statements)
        for index in sent.indices { _ = try batch.result(index) }
        return batch.outcomes.dropFirst(sent.count)
    }

    /// The batch's answer, awaited. A checked continuation: the connection promises one
    /// completion per batch, and the check (a resume twice traps, one never made is
    /// reported) costs nothing beside a round trip to the server.
    private func sendBatch(_ statements: [PostgresQuery]) async throws -> BatchResult {
        let answer = BatchAnswer()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            connection.run(statements) { result in
                switch result {
                case .success(let batch):
                    answer.batch = batch
                    continuation.resume()
                case .failure(let error):
                    continuation.resume(throwing: error)
                }
            }
        }
        guard let batch = answer.batch else { preconditionFailure("a batch resumed without its answer") }
        return batch
    }

    static func postgresValue(_ value: StoreValue) -> PostgresValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .real(let number): .double(number)
        case .text(let text): .text(text)
        case .blob(let bytes): .bytes(bytes)
        }
    }
}

@available(*, unavailable, message: "a session belongs to the loop thread, as its connection does")
extension PostgresSession: Sendable {}

/// Where a batch's answer waits for the task that sent it. The continuation carries no value:
/// `resume` takes its value as `sending`, and the checker cannot see the completion's
/// `BatchResult` (not Sendable, the loop thread's like the task) as free to pass.
private final class BatchAnswer {
    var batch: BatchResult?
}
