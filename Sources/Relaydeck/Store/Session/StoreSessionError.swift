/// A session used against its own rules: the caller's defect, refused the same way in both
/// dialects (PostgreSQL would only warn of a BEGIN inside a transaction or a COMMIT outside
/// one, SQLite would throw). The store answers it as any defect. Never a database's error:
/// those pass unchanged.
public struct StoreSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The parameters of the SQL do not first appear in numeric order (`StoreSession`).
        case parametersOutOfOrder
        /// BEGIN inside a transaction.
        case alreadyInTransaction
        /// COMMIT, ROLLBACK or SAVEPOINT outside a transaction.
        case notInTransaction
        /// RELEASE or ROLLBACK TO without a savepoint open.
        case noSavepoint
    }

    public let kind: Kind
    public let message: String
    /// The statement's SQL, for `parametersOutOfOrder`.
    public let sql: String?

    public init(_ kind: Kind, _ message: String, sql: String? = nil) {
        self.kind = kind
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "store session misused: \(message)"
        if let sql { text += " in: \(sql)" }
        return text
    }
}
