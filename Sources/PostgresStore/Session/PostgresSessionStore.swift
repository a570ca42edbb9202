import EventLoop
import Postgres
import Relaydeck

/// A `SessionStore` on PostgreSQL: what a service written against `StoreSession` runs on when
/// the store is PostgreSQL. It keeps a pool of up to `connections` connections made with a
/// `PostgresConnector` (the first at `start`, the others as bodies come to need them), each
/// made again by itself when it is lost
/// (`PostgresSessionStore+Connecting`). A body holds one connection for as long as it runs; a
/// body that finds every connection held waits for the first one handed over, in the order
/// the bodies came. A write is BEGIN, its body, COMMIT, and ROLLBACK when the body throws. A
/// body runs once: never again on another connection after its own was lost.
///
/// Errors are mapped here, once: a lost, closed or unreachable database is
/// `StoreError.unavailable` (the request's `503` with `Retry-After`), and so is a transaction
/// that lost a race (a deadlock, a serialization failure: the client's retry runs it again);
/// any other is a `StoreError.failure` naming the SQL and the SQLSTATE, never the message
/// (PostgreSQL's may quote a bound value) nor the values. While no connection is up
/// (connecting, waiting to try again, stopped) a body is refused at once with `.unavailable`,
/// never parked; so are the bodies waiting in line when the last connection drops.
///
/// The recording writes of one account that come while one runs are committed together
/// (`CommitGroup`, the loop turn's group commit of SQLite carried over); the others are each a
/// transaction of their own. Loop thread only; not Sendable.
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
    /// The pool's places, each with its connection when it has one.
    let slots: [PoolSlot]
    /// The bodies waiting for a connection, first come first served; each is given a held
    /// link, or none when none is left up.
    var waiting: [PoolWaiter] = []
    /// Each account's group of recording writes a new one joins, while it takes members
    /// (`CommitGroup`).
    var openGroups: [String: CommitGroup] = [:]
    /// The writes begun so far, each numbered, and those not ended yet.
    var writesBegun: UInt64 = 0
    var writesInFlight: Set<UInt64> = []
    /// Actions waiting for every write up to their number to end (`afterWritesInFlight`).
    var afterWrites: [(upTo: UInt64, action: () -> Void)] = []
    /// Between `start` and `stop`: a body that must wait opens another place (`grow`).
    var isStarted = false
    /// When the last connection up was lost (or the store stopped).
    var lostAt: Instant?
    /// The availability last told to `onAvailabilityChange`; nil before the first.
    var announced: Bool?

    /// Told on the loop each time `isAvailable` changes, with why it became false (the
    /// `PostgresError`, which names the endpoint and the SQLSTATE but never a password); also
    /// told once when the first attempt fails. Not told of each failed attempt after it.
    public var onAvailabilityChange: ((_ isAvailable: Bool, _ reason: PostgresError?) -> Void)?

    /// The pool's size when none is asked for (`DATABASE_CONNECTIONS`' default).
    public static let defaultConnections = 4
    /// The most a pool may have: each connection is a backend process on the database's side.
    public static let connectionsRange = 1...100

    /// A store that keeps `connections` connections made with `connector` once started;
    /// `backoff` paces each one's attempts while the database is away.
    public init(connector: PostgresConnector, loop: EventLoop, backoff: ReconnectBackoff = ReconnectBackoff(),
                connections: Int = PostgresSessionStore.defaultConnections) {
        precondition(Self.connectionsRange.contains(connections), "a pool of \(connections) connections")
        self.connector = connector
        self.loop = loop
        slots = (0..<connections).map { _ in PoolSlot(backoff: backoff) }
    }

    deinit {
        for slot in slots {
            if let retryTimer = slot.retryTimer { loop.cancel(retryTimer) }
            slot.link?.end()
        }
    }

    /// Whether a connection is up: a body now would run, at once or after the bodies before
    /// it (`/health`).
    public var isAvailable: Bool { slots.contains { $0.link != nil } }

    /// The connections up now.
    public var connectedCount: Int { slots.count { $0.link != nil } }

    /// The connections a body holds now.
    public var heldCount: Int { slots.count { $0.link?.isHeld == true } }

    /// The last moment the store was known available: the loop's now while it is, the moment
    /// it was lost after that; nil before its first connection.
    public var lastAvailable: Instant? { isAvailable ? loop.now : lostAt }

    /// Bodies waiting for a connection now.
    public var waitingCount: Int { waiting.count }

    /// A read runs outside a transaction block: each statement is a transaction of its own,
    /// so a body of one statement that writes (`RateCells.take`'s upsert) commits with it, in
    /// one round trip.
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
        try await transaction { session in (try await body(session), nil) }
    }

    /// A write: BEGIN, `body`, COMMIT; the statement `body` gives besides its value, when it
    /// gives one, runs last, in one batch with the COMMIT (`PostgresSession.commit(after:_:)`).
    /// In flight (`afterWritesInFlight`) until it ended.
    func transaction<T>(_ body: (PostgresSession) async throws -> (T, last: (sql: String, values: [StoreValue])?)) async throws -> T {
        let write = beginWrite()
        defer { endWrite(write) }
        return try await holding { session in
            try await session.begin()
            let result: T
            do {
                let (value, last) = try await body(session)
                result = value
                if let last {
                    try await session.commit(after: last.sql, last.values)
                    return result
                }
            } catch {
                // A failed statement already ended nothing on our side; a lost connection
                // ended the transaction on the server's; a failed COMMIT ended it (and the
                // session refuses this ROLLBACK).
                try? await session.rollback()
                throw error
            }
            try await session.commit()
            return result
        }
    }

    /// `body` with a connection to itself, or `.unavailable` at once when none is up; the
    /// first waiting body gets it once `body` ends. An error that says the connection is of no
    /// more use (a standby's read-only refusal after a failover, a protocol fault) drops it.
    private func holding<T>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        guard let link = await take() else { throw Self.unavailable }
        defer { handOver(link) }
        do {
            return try await body(link.session)
        } catch {
            throw mapped(error, on: link)
        }
    }

    /// What a body's error becomes, once: the client's and the session's errors as the
    /// store's (a connection of no more use dropped first); any other (a service's own) as it is.
    func mapped(_ error: any Error, on link: PostgresLink) -> any Error {
        switch error {
        case let error as PostgresError:
            if error.needsNewConnection { lose(link, error) }
            return Self.translate(error)
        case let error as StoreSessionError:
            return StoreError.failure("\(error)")
        default:
            return error
        }
    }

    static let unavailable = StoreError.unavailable(retryAfterSeconds: Store.retryAfterSeconds)

    /// A free connection, held for the caller; else, while one is up, the first one handed
    /// over after the bodies that came before; nil when none is up (or the last went while
    /// waiting).
    func take() async -> PostgresLink? {
        for slot in slots {
            if let link = slot.link, !link.isHeld {
                link.isHeld = true
                return link
            }
        }
        guard isAvailable else { return nil }
        grow()
        let waiter = PoolWaiter()
        await withCheckedContinuation { continuation in
            waiter.continuation = continuation
            waiting.append(waiter)
        }
        return waiter.link
    }

    /// The holder of `link` is done: the first waiting body gets it, held still; a link that
    /// ended is no one's.
    func handOver(_ link: PostgresLink) {
        guard !link.isEnded else { return }
        if waiting.isEmpty {
            link.isHeld = false
        } else {
            waiting.removeFirst().give(link)
        }
    }

    /// A link just up: to the first waiting body, if one waits.
    func offer(_ link: PostgresLink) {
        guard !waiting.isEmpty else { return }
        link.isHeld = true
        waiting.removeFirst().give(link)
    }

    /// Every waiting body refused: no connection is left up.
    func refuseWaiting() {
        let refused = waiting
        waiting = []
        for body in refused { body.give(nil) }
    }

    static func translate(_ error: PostgresError) -> StoreError {
        if error.isUnavailable || error.needsNewConnection || error.kind == .closed || error.kind == .connectionLost
            || error.meaning == .retryable {
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
