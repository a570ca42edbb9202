import Clock
import SQLite

/// The inbox of each key (`inbox.md`): what the person and other agents send to it. Items are
/// added inside the transaction of the change that makes them (`add`), read by the key's
/// agent, and listed for the account.
public final class Inbox {
    /// `inbox.md#inbox-item`
    public static let maxUnreadPerKey = 200
    public static let unreadLifetimeMillis: Int64 = 7 * 24 * 3_600_000
    public static let readLifetimeMillis: Int64 = 24 * 3_600_000
    /// `GET /v1/keys/{key_id}/inbox` shows this many.
    public static let recentCount = 50

    let store: any SessionStore
    let clock: any Clock
    let random: any RandomSource
    let hub: EventHub

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource, hub: EventHub) {
        self.store = store
        self.clock = clock
        self.random = random
        self.hub = hub
    }

    /// Adds an item to the inbox of `keyID` in the caller's write (a task change, an answer, a
    /// message), keeps the unread cap, and records `inbox.updated` with the new unread count.
    @discardableResult
    public func add(_ db: any StoreSession, _ turn: ChangeRecorder, accountID: String, keyID: String, kind: InboxItem.Kind,
                    from: InboxItem.Sender, taskID: String?, questionID: String? = nil, text: String,
                    actor: Change.Actor) async throws -> InboxItem {
        let now = clock.wallMillis
        let item = InboxItem(id: Identifier.make("inb_", millis: now, random: random), accountID: accountID, keyID: keyID,
                             kind: kind, from: from, taskID: taskID, questionID: questionID, text: text, createdAt: now,
                             readAt: nil)
        var fromKey: SQLiteValue = .null
        var fromLabel: SQLiteValue = .null
        if case .agent(let senderID, let label) = from {
            fromKey = .text(senderID)
            fromLabel = .text(label)
        }
        try await prune(db, keyID: keyID, now: now)
        try await db.run(InboxSQL.insert,
            .text(item.id), .text(accountID), .text(keyID), .text(kind.rawValue), fromKey, fromLabel,
            taskID.map { .text($0) } ?? .null, questionID.map { .text($0) } ?? .null, .text(text), .integer(now))
        try await db.run(InboxSQL.dropOldestUnread(db.dialect), .text(keyID), .integer(Int64(Self.maxUnreadPerKey)))
        let unread = try await Self.unreadCount(db, keyID: keyID)
        try await turn.record(Change(accountID: accountID, event: .inboxUpdated(keyID: keyID, unread: unread), actor: actor))
        return item
    }

    /// The unread items of the key, oldest first (`GET /v1/inbox`). With `markRead` they
    /// become read now. A task named by an item counts as seen by the agent from now on
    /// (`inbox.md#task-field`), also without `markRead`.
    public func read(_ use: KeyUse, limit: Int, markRead: Bool) async throws -> (items: [InboxItem], unread: Int) {
        // Nothing unread (the common case of an agent that polls or parks): answered from a
        // read transaction. A write would wait for the write lock, which another process may
        // hold, and a parked call must still answer at the end of its wait; the pruning of old
        // items waits for the next read that has items, or the next item.
        if try await unread(keyID: use.keyID) == 0 { return ([], 0) }
        let now = clock.wallMillis
        return try await store.writing(hub: hub, account: use.accountID) { db, turn in
            // Reads of one key's inbox one at a time on PostgreSQL (its writers run side by
            // side): of two waiting calls that mark read, one gets an item, the other finds it
            // read (`inbox.md`), as SQLite's one writer makes it.
            try await db.lockKey(use.keyID)
            try await prune(db, keyID: use.keyID, now: now)
            var items = try await db.rows(InboxSQL.unread, [.text(use.keyID), .integer(Int64(limit))]) { try InboxItem(row: $0) }
            for index in items.indices where markRead {
                try await db.run(InboxSQL.markRead, .integer(now), .text(items[index].id))
                items[index].readAt = now
            }
            // Only the key's own tasks: a message may name a task of another key.
            var seen: Set<String> = []
            for taskID in items.compactMap(\.taskID) where seen.insert(taskID).inserted {
                guard let task = try? await Tasks.fetch(db, .key(use), taskID: taskID) else { continue }
                if let change = try await Tasks.markSeen(db, task, by: use, now: now).1 {
                    try await turn.record(change)
                }
            }
            let unread = try await Self.unreadCount(db, keyID: use.keyID)
            if markRead && !items.isEmpty {
                try await turn.record(Change(accountID: use.accountID, event: .inboxUpdated(keyID: use.keyID, unread: unread),
                                       actor: .key(use.keyID)))
            }
            return (items, unread)
        }
    }

    /// Unread items of the key now (a waiting read looks at this first).
    public func unread(keyID: String) async throws -> Int {
        try await store.reading { db in try await Self.unreadCount(db, keyID: keyID) }
    }

    /// The 50 most recent items of a key of the account, newest first, with their read state;
    /// nothing becomes read (`GET /v1/keys/{key_id}/inbox`).
    public func recent(accountID: String, keyID: String) async throws -> (items: [InboxItem], unread: Int) {
        try await store.reading { db in
            _ = try await Keys.fetch(db, accountID: accountID, keyID: keyID)
            let items = try await db.rows(InboxSQL.recent, [.text(keyID), .integer(Int64(Self.recentCount))]) { try InboxItem(row: $0) }
            return (items, try await Self.unreadCount(db, keyID: keyID))
        }
    }

    static func unreadCount(_ db: any StoreSession, keyID: String) async throws -> Int {
        try await db.firstRow(InboxSQL.unreadCount, [.text(keyID)]) { try $0.int("unread") } ?? 0
    }

    /// Items past their lifetime go when the key's inbox is written (`overview.md#retention`).
    private func prune(_ db: any StoreSession, keyID: String, now: Int64) async throws {
        try await db.run(InboxSQL.prune, .text(keyID), .integer(now - Self.unreadLifetimeMillis),
                                             .integer(now - Self.readLifetimeMillis))
    }
}
