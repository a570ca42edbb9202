/// A failed connection, statement or read, typed by what the caller does about it
/// (`meaning`). It carries the server's SQLSTATE and primary message and the SQL of the
/// statement, never the values bound to it: the server's DETAIL (a unique violation's key
/// values) is not kept, and the message of a data exception (class 22, which quotes the
/// input) is cut before the quoted value. So the error can be logged as it is.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server refused the statement (an ErrorResponse): see `sqlState`.
        case server
        /// No connection could be made, or it ended (reset, closed, the server gone).
        case connectionLost
        /// The connection's set-up or a batch took longer than its limit; the connection is
        /// closed, as nothing tells what the server did with what was sent.
        case timedOut
        /// The server broke the protocol or one of the client's bounds (a message or a
        /// result too large); the connection is closed.
        case protocolViolation
        /// The server refused the credentials, asked for a method this client does not speak,
        /// or failed to prove it knows the password (SCRAM's server signature).
        case authentication
        /// TLS could not be set up: refused by the server, or its certificate did not verify.
        case tls
        /// Not run: an earlier statement of its batch failed, and the server skips the rest
        /// up to the batch's end.
        case skipped
        /// A row read as something it is not (a column it does not have, NULL where a value
        /// must be, another type): the query and its decoder are out of step.
        case mismatch
        /// The connection was closed by its owner (or is not set up yet).
        case closed
        /// The connection takes no more work now: `PostgresLimits.maxBatchesInFlight` wait.
        case busy
    }

    public let kind: Kind
    /// The five characters of SQLSTATE, for `.server` (and for an error during set-up).
    public let sqlState: String?
    public let message: String
    /// The constraint a violation names (a `23xxx`), to tell one unique index from another.
    public let constraint: String?
    /// The statement's SQL; never its parameters.
    public let sql: String?

    public init(_ kind: Kind, _ message: String, sqlState: String? = nil, constraint: String? = nil, sql: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.constraint = constraint
        self.sql = sql
    }

    /// The same error naming the statement it came from.
    func about(_ sql: String) -> PostgresError {
        PostgresError(kind, message, sqlState: sqlState, constraint: constraint, sql: sql)
    }

    public var description: String {
        var text: String
        switch kind {
        case .server: text = "PostgreSQL error \(sqlState ?? "?????") (\(message))"
        case .connectionLost: text = "PostgreSQL connection lost: \(message)"
        case .timedOut: text = "PostgreSQL timed out: \(message)"
        case .protocolViolation: text = "PostgreSQL protocol violation: \(message)"
        case .authentication: text = "PostgreSQL authentication failed: \(message)"
        case .tls: text = "PostgreSQL TLS failed: \(message)"
        case .skipped: text = "PostgreSQL statement not run: \(message)"
        case .mismatch: text = "PostgreSQL result mismatch: \(message)"
        case .closed: text = "PostgreSQL connection closed: \(message)"
        case .busy: text = "PostgreSQL connection busy: \(message)"
        }
        if kind != .server, let sqlState { text += " [\(sqlState)]" }
        if let sql { text += " in: \(sql)" }
        return text
    }
}
