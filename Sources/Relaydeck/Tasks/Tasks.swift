import Clock
import SQLite

/// The tasks of the keys (`rest-api.md#tasks`). An API key reaches only its own key's tasks;
/// the account reaches those of all its live keys. Each write is one transaction that also
/// keeps the key's `counts`, the caps of `overview.md#limits` and the list order's history
/// (`TaskCursor`); it records its changes (`turn.record`), which the hub publishes after the
/// commit.
public final class Tasks {
    /// `overview.md#limits`
    public static let maxOpenPerKey = 1_000
    public static let maxClosedPerKey = 5_000

    let store: any SessionStore
    let clock: any Clock
    let random: any RandomSource
    let hub: EventHub
    /// The person's changes leave an item in the key's inbox, in the same transaction.
    let inbox: Inbox
    /// The list snapshots handed out in cursors: whether a move needs its `task_moves` row.
    let snapshots = ListSnapshots()

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource, hub: EventHub, inbox: Inbox) {
        self.store = store
        self.clock = clock
        self.random = random
        self.hub = hub
        self.inbox = inbox
    }

    public func get(_ principal: Principal, taskID: String) async throws -> WorkTask {
        try await store.reading { db in try await Self.fetch(db, principal, taskID: taskID) }
    }

    /// Makes a task for the caller's key, or for `keyID` when the account calls (the API has
    /// checked which of the two was sent: `rest-api.md#create-a-task`). `host` is the valid
    /// `X-Relaydeck-Host` of an agent's request; it never changes afterwards.
    public func create(_ principal: Principal, keyID: String?, _ new: NewTask, host: String?) async throws -> WorkTask {
        let now = clock.wallMillis
        let accountID = principal.accountID
        let status = new.status ?? .todo
        let task = try await store.writing(hub: hub, account: accountID) { db, turn in
            let owner: String
            switch principal {
            case .key(let use): owner = use.keyID
            case .account: owner = try await Keys.fetch(db, accountID: accountID, keyID: keyID ?? "").id
            }
            let fromAgent = principal.keyID != nil
            let task = WorkTask(
                id: Identifier.make("tsk_", millis: now, random: random), accountID: accountID, keyID: owner,
                title: new.title.value, description: new.description?.value ?? "", status: status,
                priority: new.priority ?? .medium, notify: new.notify ?? true,
                progress: status == .done ? 100 : new.progress, statusNote: new.statusNote.flatMap(TaskPatch.stored),
                source: fromAgent ? .agent : .app, createdAt: now, updatedAt: now,
                completedAt: status == .done ? now : nil, seenAt: fromAgent ? now : nil, host: fromAgent ? host : nil)
            let counts = try await Self.counts(db, keyID: owner)
            if !status.isClosed && counts.open >= Self.maxOpenPerKey { throw Self.openCapError }
            try await store.quota.admit(db, accountID: accountID, growth: StorageQuota.bytes(of: task))
            let seq = try await Self.nextSeq(db)
            try await db.run(TaskSQL.insert,
                .text(task.id), .text(accountID), .text(owner), .text(task.title), .text(task.description),
                .text(status.rawValue), .text(task.priority.rawValue), .integer(task.notify ? 1 : 0),
                task.progress.map { .integer(Int64($0)) } ?? .null, task.statusNote.map { .text($0) } ?? .null,
                .text(task.source.rawValue), .integer(now), .integer(now), task.completedAt.map { .integer($0) } ?? .null,
                task.seenAt.map { .integer($0) } ?? .null, task.host.map { .text($0) } ?? .null, .integer(seq))
            try await Self.moveCount(db, keyID: owner, from: nil, to: status)
            try await turn.record(Change(accountID: accountID, event: .taskCreated(task), actor: Self.actor(principal)))
            if status.isClosed && counts.closed >= Self.maxClosedPerKey {
                try await Self.evictOldestClosed(db, turn, accountID: accountID, keyID: owner, except: task.id, now: now)
            }
            if !fromAgent {
                try await notify(db, turn, task, .taskAssigned, text: task.title)
            }
            return task
        }
        return task
    }

    /// Deletes a task the caller can reach: `204`, and `task.deleted`.
    public func delete(_ principal: Principal, taskID: String) async throws {
        try await store.writing(hub: hub, account: principal.accountID) { db, turn in
            let task = try await Self.fetch(db, principal, taskID: taskID)
            try await Self.remove(db, turn, accountID: task.accountID, task.id, keyID: task.keyID, status: task.status,
                            actor: Self.actor(principal), now: clock.wallMillis)
            if principal.keyID == nil {
                try await notify(db, turn, task, .taskDeleted, text: task.title)
            }
        }
    }

    /// `inbox.md#inbox-item`: the person's change of a task, told to the task's key.
    func notify(_ db: any StoreSession, _ turn: ChangeRecorder, _ task: WorkTask, _ kind: InboxItem.Kind, text: String) async throws {
        try await inbox.add(db, turn, accountID: task.accountID, keyID: task.keyID, kind: kind, from: .person, taskID: task.id,
                      text: text, actor: .account)
    }

    public static let openCapError = DomainError.conflict("A key can have \(TextRules.grouped(maxOpenPerKey)) open tasks.")

    static func actor(_ principal: Principal) -> Change.Actor {
        principal.keyID.map { .key($0) } ?? .account
    }

    /// A task the principal can reach, or `404 Task not found.`: the account's tasks of its
    /// live keys, or a key's own.
    static func fetch(_ db: any StoreSession, _ principal: Principal, taskID: String) async throws -> WorkTask {
        let values: [SQLiteValue] = [.text(taskID), .text(principal.accountID), principal.keyID.map { .text($0) } ?? .null]
        let sql = principal.keyID == nil ? TaskSQL.get : TaskSQL.getOfKey
        guard let task = try await db.firstRow(sql, values, { try WorkTask(row: $0) }) else {
            throw DomainError.notFound("Task not found.")
        }
        return task
    }

    /// `fetch`, with the change that last moved the task in the list order (`changed_seq`).
    static func fetchForChange(_ db: any StoreSession, _ principal: Principal, taskID: String) async throws
        -> (task: WorkTask, changedSeq: Int64) {
        let values: [SQLiteValue] = [.text(taskID), .text(principal.accountID), principal.keyID.map { .text($0) } ?? .null]
        let sql = principal.keyID == nil ? TaskSQL.getForChange : TaskSQL.getOfKeyForChange
        guard let found = try await db.firstRow(sql, values, { (try WorkTask(row: $0), try $0.int64("changed_seq")) }) else {
            throw DomainError.notFound("Task not found.")
        }
        return found
    }

    /// The next number of the global change counter (`TaskCursor`); `currentSeq` reads it.
    /// Always inside a write transaction, so the read sees this increment. Two statements,
    /// not `UPDATE ... RETURNING`: SQLite collects RETURNING rows in a temporary table of its
    /// own, opened and freed (its page cache with it) on every call, which was a tenth of a
    /// task write's time.
    static func nextSeq(_ db: any StoreSession) async throws -> Int64 {
        try await db.run(TaskSQL.bumpSeq)
        return try await seq(db, TaskSQL.currentSeq)
    }

    static func currentSeq(_ db: any StoreSession) async throws -> Int64 {
        try await seq(db, TaskSQL.currentSeq)
    }

    private static func seq(_ db: any StoreSession, _ sql: String) async throws -> Int64 {
        guard let seq = try await db.firstRow(sql, [], { try $0.int64("seq") }) else {
            throw SQLiteError(code: 20, message: "the change counter has no row", sql: sql)
        }
        return seq
    }

    /// The key's counts, read for a cap: the key's row is this write's until its COMMIT
    /// (`lockKey`), so two writers of the key cannot both pass the cap on PostgreSQL.
    static func counts(_ db: any StoreSession, keyID: String) async throws -> (open: Int, closed: Int) {
        try await db.lockKey(keyID)
        guard let counts = try await db.firstRow(TaskSQL.counts, [.text(keyID)], { (try $0.int("open"), try $0.int("closed")) }) else {
            throw DomainError.notFound("Key not found.")
        }
        return counts
    }

    /// The key's counts as a task leaves status `from` for `to` (nil: it is created, or removed).
    static func moveCount(_ db: any StoreSession, keyID: String, from: WorkTask.Status?, to: WorkTask.Status?) async throws {
        try await db.run(TaskSQL.moveCount, from.map { .text($0.rawValue) } ?? .null, to.map { .text($0.rawValue) } ?? .null,
                         .text(keyID))
    }

    /// Removes a task with what hangs on it: its pending questions become `cancelled`
    /// (`rest-api.md#question`: "its task is deleted"), its Live Activity registrations and
    /// its list-order notes go, and its key's count drops. Records `task.deleted` first,
    /// while the task and its registrations are still there (planning the Live Activity `end`
    /// needs them), and the questions' changes once the task is gone (so they plan no update
    /// of its activities).
    static func remove(_ db: any StoreSession, _ turn: ChangeRecorder, accountID: String, _ taskID: String, keyID: String,
                       status: WorkTask.Status, actor: Change.Actor, now: Int64) async throws {
        try await turn.record(Change(accountID: accountID, event: .taskDeleted(taskID: taskID, keyID: keyID), actor: actor))
        let cancelled = try await Questions.cancelPending(ofTask: taskID, in: db, now: now)
        try await db.run(TaskSQL.delete, .text(taskID))
        try await db.run(TaskSQL.deleteMoves, .text(taskID))
        try await db.run(TaskSQL.deleteRegistrations, .text(taskID))
        try await moveCount(db, keyID: keyID, from: status, to: nil)
        try await turn.record(cancelled)
    }

    /// One more closed task than the cap: the oldest closed one goes, and the stream hears of
    /// it (`overview.md#limits`).
    static func evictOldestClosed(_ db: any StoreSession, _ turn: ChangeRecorder, accountID: String, keyID: String,
                                  except: String, now: Int64) async throws {
        let oldest = try await db.firstRow(TaskSQL.oldestClosed, [.text(keyID), .text(except)]) { row in
            (id: try row.text("id"), status: WorkTask.Status(rawValue: try row.text("status")) ?? .done)
        }
        guard let (id, status) = oldest else { return }
        try await remove(db, turn, accountID: accountID, id, keyID: keyID, status: status, actor: .server, now: now)
    }
}
