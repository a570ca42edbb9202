import Clock
import SQLite

extension Tasks {
    /// Applies a `PATCH` (`rest-api.md#update-a-task`). A patch that changes nothing returns
    /// the task as it is: no write, the same `updated_at`, no event.
    public func update(_ principal: Principal, taskID: String, _ patch: TaskPatch) async throws -> WorkTask {
        let now = clock.wallMillis
        let task = try await store.writing(hub: hub, account: principal.accountID) { db, turn in
            let (before, changedSeq) = try await Self.fetchForChange(db, principal, taskID: taskID)
            var after = patch.applied(to: before, now: now)
            guard after != before else { return before }
            after.updatedAt = now
            let counts = try await Self.counts(db, keyID: before.keyID)
            let reopens = before.status.isClosed && !after.status.isClosed
            let closes = !before.status.isClosed && after.status.isClosed
            if reopens && counts.open >= Self.maxOpenPerKey { throw Self.openCapError }
            try await store.quota.admit(db, accountID: before.accountID,
                                  growth: StorageQuota.bytes(of: after) - StorageQuota.bytes(of: before))
            let seq = try await Self.nextSeq(db)
            // Where the task stood before it moves to the top: a cursor begun earlier still
            // finds it there (`TaskCursor`), when one can need it (`ListSnapshots`; with
            // PostgreSQL always, since another node may have handed the cursor out). Old moves
            // no cursor can use go on the way.
            if db.dialect == .postgres
                || snapshots.needsRow(accountID: before.accountID, changedSeq: changedSeq, seq: seq, now: now) {
                try await db.run(TaskSQL.insertMove, .text(before.id), .integer(seq), .integer(before.updatedAt),
                                                         .integer(now))
                try await db.run(TaskSQL.pruneMoves, .integer(now - TaskCursor.lifetimeMillis))
            }
            try await db.run(
                TaskSQL.update, .text(after.title), .text(after.description), .text(after.status.rawValue),
                .text(after.priority.rawValue), .integer(after.notify ? 1 : 0),
                after.progress.map { .integer(Int64($0)) } ?? .null, after.statusNote.map { .text($0) } ?? .null,
                .integer(now), after.completedAt.map { .integer($0) } ?? .null, .integer(seq), .text(after.id))
            if after.status != before.status {
                try await Self.moveCount(db, keyID: before.keyID, from: before.status, to: after.status)
            }
            try await turn.record(Change(accountID: after.accountID, event: .taskUpdated(after), actor: Self.actor(principal),
                                   previous: before))
            if closes && counts.closed >= Self.maxClosedPerKey {
                try await Self.evictOldestClosed(db, turn, accountID: after.accountID, keyID: after.keyID, except: after.id,
                                           now: now)
            }
            if principal.keyID == nil, let line = InboxChangeLine.text(before: before, after: after) {
                try await notify(db, turn, after, .taskChanged, text: line)
            }
            return after
        }
        return task
    }
}
