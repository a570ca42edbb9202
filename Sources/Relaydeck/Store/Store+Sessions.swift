import SQLite

/// What a service written against `StoreSession` needs of its store, whichever it is: SQLite's
/// `Store`, or PostgreSQL's (`PostgresSessionStore`). A read runs its body with a session; a
/// write runs its body in a transaction (or a savepoint of the one open), committed when the
/// body returns and undone when it throws.
public protocol SessionStore: AnyObject {
    /// What the gate remembers of the credentials it found: exact, because each write that
    /// changes a key, an account or a grant updates it after its COMMIT (this node's cache).
    var credentials: CredentialCache { get }
    /// How much text one account may keep (`ACCOUNT_STORAGE_LIMIT`).
    var quota: StorageQuota { get }
    /// Whether the database answers now (`/health`, the event streams' check, `/metrics`).
    func isHealthy() -> Bool

    @discardableResult
    func reading<T>(_ body: (any StoreSession) async throws -> T) async throws -> T
    @discardableResult
    func writing<T>(_ body: (any StoreSession) async throws -> T) async throws -> T
    /// A write that changes what clients see: `body` records each change with the recorder,
    /// which plans its pushes in the write; `hub` publishes the changes after the COMMIT.
    /// `account`: the one account whose rows the write changes, when it is one (PostgreSQL
    /// commits such writes of one account together, `CommitGroup`); nil for a write of several
    /// (a job's) or of one not known before its body runs.
    @discardableResult
    func writing<T>(hub: EventHub, account: String?, _ body: (any StoreSession, ChangeRecorder) async throws -> T) async throws -> T
    /// `action` once every write in flight now has ended (committed or not): what a push
    /// planner's kick waits for, since the drain it starts must see the jobs the planning
    /// write adds. SQLite's turn has committed by the time a kick's drain runs (at the end of
    /// the turn), so its store runs `action` at once.
    func afterWritesInFlight(_ action: @escaping () -> Void)
}

extension SessionStore {
    /// A recording write of no one account known before it runs (a job's).
    @discardableResult
    public func writing<T>(hub: EventHub, _ body: (any StoreSession, ChangeRecorder) async throws -> T) async throws -> T {
        try await writing(hub: hub, account: nil, body)
    }
}

/// The store for services written against `StoreSession` (issue 25: the same service code on
/// SQLite and on PostgreSQL). The same rules as `read` and `write`: a read shares the turn's
/// read transaction; a write is a savepoint of the unit of work open (the turn's) or a unit
/// of its own, committed when its body returns; changes recorded through `turn` are published
/// after the COMMIT. With SQLite every await in the body returns at once.
extension Store: SessionStore {
    public func afterWritesInFlight(_ action: @escaping () -> Void) {
        action()
    }

    @discardableResult
    public func reading<T>(_ body: (any StoreSession) async throws -> T) async throws -> T {
        let database = try readConnection()
        do {
            return try await body(session(over: database))
        } catch let error as SQLiteError {
            throw translate(error)
        }
    }

    @discardableResult
    public func writing<T>(_ body: (any StoreSession) async throws -> T) async throws -> T {
        try await performing { work, _ in try await body(session(over: work.database)) }
    }

    /// One unit of work for every write, whatever its account: the turn's.
    @discardableResult
    public func writing<T>(hub: EventHub, account: String?, _ body: (any StoreSession, ChangeRecorder) async throws -> T) async throws -> T {
        try await performing { work, depth in
            let session = session(over: work.database)
            return try await body(session, ChangeRecorder(session: session, hub: hub, keeper: work, depth: depth))
        }
    }
}
