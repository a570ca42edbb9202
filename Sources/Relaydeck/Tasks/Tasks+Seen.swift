import Clock
import SQLite

extension Tasks {
    /// `inbox.md#task-field`: a task that an MCP tool result gives to the agent
    /// (`list_tasks`, `get_task`, `update_task`) is seen now, the first time only; `updated_at`
    /// does not change, and `task.updated` tells the app. Returns the tasks as given, with
    /// `seen_at` where it was set.
    public func markSeen(_ use: KeyUse, _ tasks: [WorkTask]) async throws -> [WorkTask] {
        guard tasks.contains(where: { $0.seenAt == nil }) else { return tasks }
        let now = clock.wallMillis
        return try await store.writing(hub: hub, account: use.accountID) { db, turn in
            var marked: [WorkTask] = []
            for task in tasks {
                guard task.seenAt == nil, task.keyID == use.keyID else {
                    marked.append(task)
                    continue
                }
                let (seen, change) = try await Self.markSeen(db, task, by: use, now: now)
                if let change { try await turn.record(change) }
                marked.append(seen)
            }
            return marked
        }
    }

    /// Sets `seen_at` of `task` if it is still null, in `db`; the change to record, if any.
    /// `Inbox.read` uses it for the tasks its items name.
    static func markSeen(_ db: any StoreSession, _ task: WorkTask, by use: KeyUse, now: Int64) async throws -> (WorkTask, Change?) {
        guard task.seenAt == nil else { return (task, nil) }
        try await db.run(TaskSQL.markSeen, .integer(now), .text(task.id))
        var seen = task
        seen.seenAt = now
        return (seen, Change(accountID: use.accountID, event: .taskUpdated(seen), actor: .key(use.keyID), previous: task))
    }
}
