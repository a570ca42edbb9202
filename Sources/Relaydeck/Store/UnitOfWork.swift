import SQLite

/// One write transaction of the store and the changes recorded in it. It runs BEGIN, COMMIT
/// and ROLLBACK, and what follows from them: a change recorded in it is planned at once (the
/// pushes it causes are rows of the same transaction, `EventHub.planners`) and published once
/// the COMMIT succeeded, with the others in the order they were recorded; a savepoint that
/// rolls back drops the changes recorded in it (their planned rows go with the SQL), and a
/// failed COMMIT or a ROLLBACK drops them all. So no service announces a change itself, and
/// none can announce one that rolled back or forget to plan one.
///
/// `Store.write` makes one for a write of its own and commits it; the API's group commit
/// takes one for the loop turn (`Store.tryBeginWork`), and every write of the turn is a
/// savepoint in it. Loop thread only; not Sendable.
public final class UnitOfWork: ChangeKeeping {
    private unowned let store: Store
    let database: Database
    /// What each open level recorded: the transaction's own, then one list per savepoint.
    private var levels: [[Recorded]] = [[]]
    /// False once committed, rolled back, or given up with its connection.
    public private(set) var isOpen = true

    private struct Recorded {
        let change: Change
        let hub: EventHub
    }

    /// BEGIN IMMEDIATE on `database`.
    init(store: Store, database: Database) throws(SQLiteError) {
        try database.begin(.immediate)
        self.store = store
        self.database = database
    }

    /// How deep the writes inside it are nested now (0: the transaction itself).
    var depth: Int { levels.count - 1 }

    /// `body` in a savepoint: when it throws, its SQL and the changes it recorded are undone,
    /// and the rest of the transaction goes on; when it returns, they join the level around it.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        enterLevel()
        let result: T
        do {
            result = try database.transaction { try body() }
        } catch {
            levels.removeLast()
            throw error
        }
        leaveLevel()
        return result
    }

    /// The same for a body that awaits (a service written against a store session).
    func savepoint<T>(_ body: () async throws -> T) async throws -> T {
        enterLevel()
        let result: T
        do {
            result = try await database.savepoint { try await body() }
        } catch {
            levels.removeLast()
            throw error
        }
        leaveLevel()
        return result
    }

    private func enterLevel() {
        precondition(isOpen, "a write inside a unit of work that has ended")
        levels.append([])
    }

    /// The changes of the level that returned join the level around it.
    private func leaveLevel() {
        let kept = levels.removeLast()
        levels[levels.count - 1] += kept
    }

    /// Keeps `changes`, planned already in this transaction, for the COMMIT. `depth` is the
    /// level of the write that records them.
    public func keep(_ changes: [Change], for hub: EventHub, depth: Int) {
        precondition(isOpen && depth == self.depth, "a change recorded outside the write it belongs to")
        levels[depth] += changes.map { Recorded(change: $0, hub: hub) }
    }

    /// COMMIT, then the changes to their hubs in the order recorded. When it throws, nothing
    /// of the transaction is kept and nothing is published.
    public func commit() throws(StoreError) {
        guard isOpen else { throw StoreError.unavailable(retryAfterSeconds: Store.retryAfterSeconds) }
        precondition(depth == 0, "a COMMIT inside a savepoint")
        let recorded = levels[0]
        end()
        do {
            try database.commit()
        } catch {
            // A credential read inside the transaction (a request after a change of a key's
            // scopes, in the same turn) may have been cached as rows that are now gone.
            store.credentials.removeAll()
            throw store.translate(error)
        }
        store.writeWorked()
        for item in recorded {
            item.hub.publish(item.change)
        }
    }

    /// ROLLBACK: nothing of it is kept, nothing of it is published.
    public func rollBack() {
        guard isOpen else { return }
        end()
        database.rollBackAll()
    }

    /// Ends it without a statement: its connection is gone.
    func abandon() {
        end()
    }

    private func end() {
        isOpen = false
        levels = [[]]
    }
}

/// What a service's write records its changes with (`writing(hub:_:)`): each change once,
/// inside the write that makes it. Recording plans the change's pushes at once, through the
/// write's own session (their rows commit or roll back with it), and leaves the change with
/// its keeper, which publishes it after the COMMIT. Valid only inside that write's body.
public struct ChangeRecorder {
    let session: any StoreSession
    let hub: EventHub
    unowned let keeper: any ChangeKeeping
    let depth: Int

    public init(session: any StoreSession, hub: EventHub, keeper: any ChangeKeeping, depth: Int) {
        self.session = session
        self.hub = hub
        self.keeper = keeper
        self.depth = depth
    }

    /// Plans `change` now and publishes it after the COMMIT (nothing, if the write rolls back).
    public func record(_ change: Change) async throws {
        try await record([change])
    }

    /// The same for several changes, planned together, published in this order.
    public func record(_ changes: [Change]) async throws {
        guard !changes.isEmpty else { return }
        try await hub.plan(changes, in: session)
        keeper.keep(changes, for: hub, depth: depth)
    }
}

/// Where a write's recorded changes wait for its COMMIT: the unit of work of SQLite's store,
/// or `KeptChanges` for a store whose write is a transaction of its own.
public protocol ChangeKeeping: AnyObject {
    /// `changes`, planned in the write at `depth`, published after the COMMIT.
    func keep(_ changes: [Change], for hub: EventHub, depth: Int)
}

/// The changes of one write that is its own transaction (PostgreSQL's store): published by
/// the store after its COMMIT, in the order recorded; dropped if it rolls back.
public final class KeptChanges: ChangeKeeping {
    private var kept: [(change: Change, hub: EventHub)] = []

    /// The changes kept so far, in the order recorded.
    public var changes: [Change] { kept.map(\.change) }

    public init() {}

    public func keep(_ changes: [Change], for hub: EventHub, depth: Int) {
        kept += changes.map { ($0, hub) }
    }

    /// Moves `other`'s changes after these (a member's into its commit group's).
    public func take(_ other: KeptChanges) {
        kept += other.kept
        other.kept = []
    }

    /// After the COMMIT: each change to its hub.
    public func publish() {
        let changes = kept
        kept = []
        for item in changes { item.hub.publish(item.change) }
    }
}
