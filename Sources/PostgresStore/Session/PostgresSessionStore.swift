import EventLoop
import Postgres
import Relaydeck

/// A `SessionStore` on PostgreSQL: what a service written against `StoreSession` runs on when
/// the store is PostgreSQL. It makes its own connection with a `PostgresConnector` (`start`),
/// and makes it again by itself when it is lost (`PostgresSessionStore+Connecting`). One body
/// at a time holds the connection, the others wait in order (`PostgresLink`); a write is
/// BEGIN, its body, COMMIT, and ROLLBACK when the body throws. A body runs once: never again
/// on another connection after its own was lost.
///
/// Errors are mapped here, once: a lost, closed or unreachable database is
/// `StoreError.unavailable` (the request's `503` with `Retry-After`), any other is a
/// `StoreError.failure` naming the SQL and the SQLSTATE, never the message (PostgreSQL's may
/// quote a bound value) nor the values. While no connection is up (connecting, waiting to try
/// again, stopped) a body is refused at once with `.unavailable`, never parked; so are the
/// bodies waiting in line when the connection drops.
///
/// Not yet: the turn's group commit (each write is a transaction of its own) and a pool.
/// Loop thread only; not Sendable.
public final class PostgresSessionStore: SessionStore {
    /// None kept: another node may delete a key, narrow its scopes or revoke a grant, and no
    /// cache here would hear of it, so each request reads its credential (one indexed read),
    /// and a change made on any node holds for the next request on every node.
    public let credentials = CredentialCache(capacity: 0)
    public var quota = StorageQuota()
    /// This node's name in the change feed (`ChangeFeed`): set, each write that records
    /// changes appends them there, the last statement before its COMMIT, for the other nodes.
    public var feedNode: String?
    let connector: PostgresConnector
    let loop: EventLoop
    var reconnection: Reconnection
    /// The connection up now; nil while there is none.
    var link: PostgresLink?
    var retryTimer: LoopTimer?
    /// When the last connection was lost (or the store stopped).
    var lostAt: Instant?
    /// The availability last told to `onAvailabilityChange`; nil before the first.
    var announced: Bool?

    /// Told on the loop each time `isAvailable` changes, with why it became false (the
    /// `PostgresError`, which names the endpoint and the SQLSTATE but never a password); also
    /// told once when the first attempt fails. Not told of each failed attempt after it.
    public var onAvailabilityChange: ((_ isAvailable: Bool, _ reason: PostgresError?) -> Void)?

    /// A store that connects with `connector` once started; `backoff` paces its attempts
    /// while the database is away.
    public init(connector: PostgresConnector, loop: EventLoop, backoff: ReconnectBackoff = ReconnectBackoff()) {
        self.connector = connector
        self.loop = loop
        reconnection = Reconnection(backoff: backoff)
    }

    deinit {
        if let retryTimer { loop.cancel(retryTimer) }
        link?.end()
    }

    /// Whether a connection is up: a body now would run (`/health`).
    public var isAvailable: Bool { link != nil }

    /// The last moment the store was known available: the loop's now while it is, the moment
    /// it was lost after that; nil before its first connection.
    public var lastAvailable: Instant? { isAvailable ? loop.now : lostAt }

    /// Bodies waiting for the connection now.
    public var waitingCount: Int { link?.waitingCount ?? 0 }

    @discardableResult
    public func reading<T>(_ body: (any StoreSession) async throws -> T) async throws -> T {
        try await holding { try await body($0) }
    }

    /// A write is known to have committed only when it returned. One answered
    /// `StoreError.unavailable` may have: the connection can be lost after the server made the
    /// COMMIT durable and before its answer arrived, and nothing tells the two apart (unless
    /// the loss came before the COMMIT was sent, which the answer does not say). So a caller
    /// must not take `.unavailable` for "nothing happened": a write that may be asked again
    /// (a client's retry after its `503`) has to give the same result when it did commit (an
    /// idempotency key, an id the client chose, an upsert), or be read back before it is
    /// made again. Any other error comes before the COMMIT, or from a COMMIT the server
    /// refused: that write did not commit.
    @discardableResult
    public func writing<T>(_ body: (any StoreSession) async throws -> T) async throws -> T {
        try await holding { session in
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

    /// `body` with the connection to itself, or `.unavailable` at once when none is up; the
    /// next waiting body gets it once `body` ends. An error that says the connection is of no
    /// more use (a standby's read-only refusal after a failover, a protocol fault) drops it.
    private func holding<T>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        guard let link, await link.take() else { throw Self.unavailable }
        defer { link.handOver() }
        do {
            return try await body(link.session)
        } catch let error as PostgresError {
            if error.needsNewConnection { lose(link, error) }
            throw Self.translate(error)
        } catch let error as StoreSessionError {
            throw StoreError.failure("\(error)")
        }
    }

    static let unavailable = StoreError.unavailable(retryAfterSeconds: Store.retryAfterSeconds)

    static func translate(_ error: PostgresError) -> StoreError {
        if error.isUnavailable || error.needsNewConnection || error.kind == .closed || error.kind == .connectionLost {
            return unavailable
        }
        var text = "PostgreSQL \(error.kind)"
        if let state = error.sqlState { text += " \(state)" }
        if let constraint = error.constraint { text += " on \(constraint)" }
        if let sql = error.sql { text += " in: \(sql)" }
        return .failure(text)
    }
}

@available(*, unavailable, message: "a store belongs to the loop thread, as its connections do")
extension PostgresSessionStore: Sendable {}
