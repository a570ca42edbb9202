import EventLoop

/// The batches sent and not yet answered, in order, and the matching of the server's
/// answers to them: a pure value, fed one message at a time, so the rules are tested without
/// a socket. Each batch is its statements (Parse and Describe for a new one, Bind, Execute)
/// and one Sync; the server answers each statement in order and then ReadyForQuery, or
/// after an error skips to the Sync: the statements after it are `.skipped`.
struct Pipeline {
    struct Statement {
        let sql: String
        let isCommit: Bool
        /// The name parsed by this batch ("" unnamed); nil when it only binds a known one.
        let parsedName: String?
        var columns: RowColumns?
        var rows: [PostgresRow] = []
        var resultBytes = 0
    }

    struct Batch {
        var statements: [Statement]
        var outcomes: [StatementOutcome] = []
        var failed = false
        /// An error after every statement was answered: the Sync's own, such as the implicit
        /// COMMIT of a batch outside BEGIN failing (a deferred constraint). Nothing of the
        /// batch was kept.
        var syncError: PostgresError?
        let deadline: Instant
        let completion: (Result<BatchResult, PostgresError>) -> Void
    }

    /// A batch answered in full, for its completion.
    struct Answered {
        let completion: (Result<BatchResult, PostgresError>) -> Void
        let result: Result<BatchResult, PostgresError>
    }

    private(set) var batches: [Batch] = []
    private var head = 0
    let maxResultBytes: Int

    init(maxResultBytes: Int) {
        self.maxResultBytes = maxResultBytes
    }

    var isEmpty: Bool { head == batches.count }
    var count: Int { batches.count - head }
    /// When the oldest batch must have been answered.
    var nextDeadline: Instant? { isEmpty ? nil : batches[head].deadline }

    mutating func append(_ batch: Batch) {
        batches.append(batch)
    }

    /// Every batch not answered, emptied out (the connection failed: each gets the error).
    mutating func drain() -> [(Result<BatchResult, PostgresError>) -> Void] {
        let completions = batches[head...].map(\.completion)
        batches = []
        head = 0
        return completions
    }

    /// One message of the query phase. Throws when the server breaks the exchange (a
    /// message that fits no statement), after which the connection is of no use.
    mutating func receive(_ message: BackendMessage, prepared: inout PreparedStatements) throws(PostgresError) -> Answered? {
        guard !isEmpty else {
            throw PostgresError(.protocolViolation, "the server answered a batch that was never sent")
        }
        switch message {
        case .parseComplete, .bindComplete, .parameterDescription:
            try current()
        case .rowDescription(let columns):
            let index = try current()
            batches[head].statements[index].columns = RowColumns(columns)
        case .noData:
            let index = try current()
            batches[head].statements[index].columns = RowColumns([])
        case .dataRow(let body):
            let index = try current()
            try addRow(body, at: index)
        case .commandComplete(let tag):
            complete(try current(), tag: tag, prepared: &prepared)
        case .emptyQueryResponse:
            complete(try current(), tag: "", prepared: &prepared)
        case .error(let notice):
            fail(notice.error, prepared: &prepared)
        case .readyForQuery(let status):
            return try finish(status, prepared: &prepared)
        default:
            throw PostgresError(.protocolViolation, "an unexpected message in the answer to a batch")
        }
        return nil
    }

    /// The statement the server is answering now.
    @discardableResult
    private func current() throws(PostgresError) -> Int {
        let batch = batches[head]
        guard !batch.failed, batch.outcomes.count < batch.statements.count else {
            throw PostgresError(.protocolViolation, "the server answered more statements than the batch holds")
        }
        return batch.outcomes.count
    }

    private mutating func addRow(_ body: [UInt8], at index: Int) throws(PostgresError) {
        // Fields read one by one: a copy of the statement would share its rows' storage, and
        // the append below would then copy every row so far, for each row.
        guard let columns = batches[head].statements[index].columns else {
            throw PostgresError(.protocolViolation, "a row before its description")
        }
        let sql = batches[head].statements[index].sql
        let bytes = batches[head].statements[index].resultBytes + body.count
        guard bytes <= maxResultBytes else {
            // The server goes on sending the rows; only a new connection stops them.
            throw PostgresError(.protocolViolation, "a result of more than \(maxResultBytes) bytes, over this client's limit", sql: sql)
        }
        let row = try PostgresRow(body: body, columns: columns, sql: sql)
        batches[head].statements[index].rows.append(row)
        batches[head].statements[index].resultBytes = bytes
    }

    private mutating func complete(_ index: Int, tag: String, prepared: inout PreparedStatements) {
        var statement = batches[head].statements[index]
        batches[head].statements[index].rows = []
        let columns = statement.columns ?? RowColumns([])
        if let name = statement.parsedName {
            prepared.confirm(statement.sql, name: name, columns: columns)
        }
        if statement.isCommit && tag == "ROLLBACK" {
            batches[head].outcomes.append(.failed(PostgresError(
                .server, "the transaction was rolled back, as a statement in it had failed", sqlState: "25P02", sql: statement.sql)))
            return
        }
        statement.columns = columns
        batches[head].outcomes.append(.done(QueryResult(rows: statement.rows, columns: columns.descriptions, commandTag: tag)))
    }

    /// An ErrorResponse: the statement being answered failed, and the server skips the
    /// rest of the batch. An error with no statement left to blame (a failed Sync) is the
    /// batch's own: it fails whole.
    private mutating func fail(_ error: PostgresError, prepared: inout PreparedStatements) {
        var batch = batches[head]
        let index = batch.outcomes.count
        guard !batch.failed, index < batch.statements.count else {
            if !batch.failed { batch.syncError = error }
            batch.failed = true
            batches[head] = batch
            return
        }
        let statement = batch.statements[index]
        batch.outcomes.append(.failed(error.about(statement.sql)))
        if let name = statement.parsedName {
            prepared.forget(statement.sql, name: name)
        } else if error.sqlState == "26000" || error.sqlState == "0A000" {
            // The server lost the statement, or its plan no longer fits the schema.
            prepared.forgetPrepared(statement.sql)
        }
        for skipped in batch.statements[(index + 1)...] {
            batch.outcomes.append(.skipped)
            if let name = skipped.parsedName { prepared.forget(skipped.sql, name: name) }
        }
        batch.failed = true
        batches[head] = batch
    }

    private mutating func finish(_ status: TransactionStatus, prepared: inout PreparedStatements) throws(PostgresError) -> Answered {
        let batch = batches[head]
        guard batch.outcomes.count == batch.statements.count else {
            throw PostgresError(.protocolViolation, "the server ended a batch before answering each statement")
        }
        batches[head] = Batch(statements: [], deadline: batch.deadline, completion: { _ in })
        head += 1
        if head == batches.count {
            batches = []
            head = 0
        }
        if let error = batch.syncError {
            return Answered(completion: batch.completion, result: .failure(error))
        }
        return Answered(completion: batch.completion, result: .success(BatchResult(outcomes: batch.outcomes, transactionStatus: status)))
    }
}
