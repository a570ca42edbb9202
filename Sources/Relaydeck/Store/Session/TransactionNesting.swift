/// Where a session stands in its transaction: outside one, in one, and how many savepoints
/// are open in it; and the name of each savepoint (`sp1` for the first, `sp2` inside it, ...),
/// so that both sessions refuse the same misuse and name their savepoints alike. A session asks
/// before it sends a statement and records the step once the statement succeeded, so a
/// statement that fails leaves it where it was.
public struct TransactionNesting: Sendable {
    public private(set) var isInTransaction = false
    public private(set) var savepoints = 0

    public init() {}

    /// Throws unless outside a transaction.
    public func checkCanBegin() throws(StoreSessionError) {
        guard !isInTransaction else { throw StoreSessionError(.alreadyInTransaction, "BEGIN inside a transaction") }
    }

    /// Throws unless inside a transaction.
    public func checkInTransaction(_ what: String) throws(StoreSessionError) {
        guard isInTransaction else { throw StoreSessionError(.notInTransaction, "\(what) outside a transaction") }
    }

    /// The name of the savepoint to open next, inside a transaction.
    public func nextSavepoint() throws(StoreSessionError) -> String {
        try checkInTransaction("SAVEPOINT")
        return "sp\(savepoints + 1)"
    }

    /// The name of the innermost savepoint open.
    public func innermostSavepoint() throws(StoreSessionError) -> String {
        guard savepoints > 0 else { throw StoreSessionError(.noSavepoint, "no savepoint is open") }
        return "sp\(savepoints)"
    }

    public mutating func began() {
        isInTransaction = true
        savepoints = 0
    }

    public mutating func savepointOpened() {
        savepoints += 1
    }

    public mutating func savepointEnded() {
        savepoints -= 1
    }

    /// After COMMIT or ROLLBACK, whether or not it succeeded.
    public mutating func ended() {
        isInTransaction = false
        savepoints = 0
    }
}
