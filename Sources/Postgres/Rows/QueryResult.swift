/// What one statement gave: its rows (kept whole, within `PostgresLimits.maxResultBytes`)
/// and its command tag (`INSERT 0 1`, `UPDATE 3`, `SELECT 2`, `BEGIN`).
public struct QueryResult {
    public let rows: [PostgresRow]
    public let columns: [ColumnDescription]
    public let commandTag: String

    /// The count at the end of the tag: rows inserted, updated, deleted, selected; nil for a
    /// command that counts nothing (`BEGIN`, `CREATE TABLE`).
    public var rowsAffected: Int? {
        guard let last = commandTag.split(separator: " ").last, commandTag.contains(" ") else { return nil }
        return Int(last)
    }
}

/// What became of one statement of a batch.
public enum StatementOutcome {
    case done(QueryResult)
    /// The server refused it (`PostgresError.kind` is `.server`), or its rows broke a bound.
    case failed(PostgresError)
    /// Not run: an earlier statement of the batch failed.
    case skipped

    /// The result, or the error (`.skipped` for a statement that did not run).
    public func get() throws(PostgresError) -> QueryResult {
        switch self {
        case .done(let result): return result
        case .failed(let error): throw error
        case .skipped: throw PostgresError(.skipped, "an earlier statement of its batch failed")
        }
    }
}

/// The answers to a batch, one per statement in the order sent, and the transaction's state
/// once the batch ended (its ReadyForQuery).
public struct BatchResult {
    public let outcomes: [StatementOutcome]
    public let transactionStatus: TransactionStatus

    /// The result of statement `index`, or its error.
    public func result(_ index: Int) throws(PostgresError) -> QueryResult {
        try outcomes[index].get()
    }

    /// The first failure of the batch, if any.
    public var firstError: PostgresError? {
        for outcome in outcomes { if case .failed(let error) = outcome { return error } }
        return nil
    }
}

@available(*, unavailable, message: "results belong to the loop thread of their connection")
extension QueryResult: Sendable {}
