import Postgres
import Relaydeck

/// A `SessionStore` on one PostgreSQL connection: what a service written against
/// `StoreSession` runs on when the store is PostgreSQL. One body at a time holds the
/// connection (a write's statements must not interleave with another's in its transaction,
/// nor a read's), the others wait in order for it; a write is BEGIN, its body, COMMIT, and
/// ROLLBACK when the body throws. Errors are mapped here, once: a lost, closed or unreachable
/// database is `StoreError.unavailable` (the request's `503` with `Retry-After`), any other is
/// a `StoreError.failure` naming the SQL and the SQLSTATE, never the message (PostgreSQL's may
/// quote a bound value) nor the values.
///
/// Not yet: the turn's group commit (each write is a transaction of its own), a pool, and
/// reconnecting (issue 25's next slices). Loop thread only; not Sendable.
public final class PostgresSessionStore: SessionStore {
    public let session: PostgresSession
    /// This node's cache of the credentials the gate found.
    public let credentials = CredentialCache()
    public var quota = StorageQuota()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(connection: PostgresConnection) {
        session = PostgresSession(connection)
    }

    /// Bodies waiting for the connection now.
    public var waitingCount: Int { waiting.count }

    public func reading<T>(_ body: (any StoreSession) async throws -> T) async throws -> T {
        try await holding { try await body(session) }
    }

    public func writing<T>(_ body: (any StoreSession) async throws -> T) async throws -> T {
        try await holding {
            try await session.begin()
            let result: T
            do {
                result = try await body(session)
            } catch {
                // A failed statement already ended nothing on our side; a lost connection
                // ended the transaction on the server's.
                try? await session.rollback()
                throw error
            }
            try await session.commit()
            return result
        }
    }

    /// `body` with the connection to itself; the next waiting body gets it once `body` ends.
    private func holding<T>(_ body: () async throws -> T) async throws -> T {
        if held {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            held = true
        }
        defer { handOver() }
        do {
            return try await body()
        } catch let error as PostgresError {
            throw Self.translate(error)
        } catch let error as StoreSessionError {
            throw StoreError.failure("\(error)")
        }
    }

    private func handOver() {
        guard !waiting.isEmpty else {
            held = false
            return
        }
        waiting.removeFirst().resume()
    }

    static func translate(_ error: PostgresError) -> StoreError {
        if error.isUnavailable || error.needsNewConnection || error.kind == .closed || error.kind == .connectionLost {
            return .unavailable(retryAfterSeconds: Store.retryAfterSeconds)
        }
        var text = "PostgreSQL \(error.kind)"
        if let state = error.sqlState { text += " \(state)" }
        if let constraint = error.constraint { text += " on \(constraint)" }
        if let sql = error.sql { text += " in: \(sql)" }
        return .failure(text)
    }
}
