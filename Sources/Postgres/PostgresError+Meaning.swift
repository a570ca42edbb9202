/// What a caller does about a `PostgresError`: the one place that reads SQLSTATEs for it.
public enum PostgresErrorMeaning: Sendable, Equatable {
    /// The database cannot be reached or cannot serve now (answer `503`, try later);
    /// `reconnect`: this connection is of no more use, open a new one.
    case unavailable(reconnect: Bool)
    /// The transaction lost a race (a serialization failure, a deadlock): run it again
    /// from its BEGIN, on the same connection.
    case retryable
    /// The statement broke a rule of the schema (a constraint: `23xxx`); the request's fault
    /// or a race a service turns into its own answer.
    case constraint
    /// Not run because another statement of the batch failed: it shares that one's fate.
    case skipped
    /// A defect: the SQL, its decoder, the client or the server is wrong (`500`, logged).
    /// `reconnect`: the connection went with it.
    case defect(reconnect: Bool)
}

extension PostgresError {
    public var meaning: PostgresErrorMeaning {
        switch kind {
        case .connectionLost, .timedOut, .authentication, .tls, .closed:
            return .unavailable(reconnect: true)
        case .busy:
            return .unavailable(reconnect: false)
        case .protocolViolation:
            return .defect(reconnect: true)
        case .skipped:
            return .skipped
        case .mismatch:
            return .defect(reconnect: false)
        case .server:
            return Self.meaning(ofSQLState: sqlState ?? "")
        }
    }

    /// By SQLSTATE (PostgreSQL's Appendix A).
    static func meaning(ofSQLState state: String) -> PostgresErrorMeaning {
        switch state {
        // A protocol violation is the client's defect; the server keeps the session.
        case "08P01": return .defect(reconnect: false)
        // The administrator or a crash ended the session, or the server is starting or
        // stopping: it closes the connection after saying so.
        case "57P01", "57P02", "57P03": return .unavailable(reconnect: true)
        // statement_timeout or a cancel: the server is slow now, the session goes on.
        case "57014": return .unavailable(reconnect: false)
        // A read-only transaction where a write was asked: after a failover this connection
        // reaches a standby; a new one finds the primary.
        case "25006": return .unavailable(reconnect: true)
        case "40001", "40P01": return .retryable
        default: break
        }
        switch state.prefix(2) {
        // Connection exceptions.
        case "08": return .unavailable(reconnect: true)
        // Invalid authorization, a database that does not exist (yet): the operator's to fix,
        // the server's to retry.
        case "28", "3D": return .unavailable(reconnect: true)
        // Insufficient resources (disk full, out of memory, too many connections) and system
        // errors (I/O): conditions of the server, not of the request.
        case "53", "58": return .unavailable(reconnect: false)
        case "23": return .constraint
        default: return .defect(reconnect: false)
        }
    }

    /// Answer `503` and try again later.
    public var isUnavailable: Bool {
        if case .unavailable = meaning { return true }
        return false
    }

    /// This connection is of no more use.
    public var needsNewConnection: Bool {
        switch meaning {
        case .unavailable(let reconnect), .defect(let reconnect): return reconnect
        case .retryable, .constraint, .skipped: return false
        }
    }

    public var isConstraintViolation: Bool { meaning == .constraint }
}
