import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `Tasks`' statements (`TaskSQL`, and `StorageQuota`'s read) through both sessions on the same
/// rows (the filled store: `tsk_1` of `key_1`, in progress, moved once at change 2; `tsk_2` of
/// `key_2`, done, changed at 4; `tsk_3` of `key_3` in the deleted account `acc_2`; the change
/// counter at 42), in the order the service runs them: each answers the same in both, and as
/// the service expects.
@Suite struct TasksStatementTests {
    /// A task in one line, every field.
    static func line(_ task: WorkTask) -> String {
        "\(task.id) \(task.accountID) \(task.keyID) \(task.title)|\(task.description)| \(task.status.rawValue) "
            + "\(task.priority.rawValue) notify \(task.notify) progress \(show(task.progress)) note \(show(task.statusNote)) "
            + "\(task.source.rawValue) \(task.createdAt) \(task.updatedAt) done \(show(task.completedAt)) "
            + "seen \(show(task.seenAt)) host \(show(task.host))"
    }

    static func show<T>(_ value: T?) -> String {
        value.map { "\($0)" } ?? "-"
    }

    /// `sql` (one of the four reads of a task by ID) for task, account and key, as a line.
    static func get(_ db: any StoreSession, _ sql: String, _ task: String, _ account: String, _ key: String?) async throws -> String {
        let values: [SQLiteValue] = [.text(task), .text(account), key.map { .text($0) } ?? .null]
        let found = try await db.firstRow(sql, values) { row in
            let changed = sql.contains("changed_seq") ? " changed \(try row.int64("changed_seq"))" : ""
            return line(try WorkTask(row: row)) + changed
        }
        return "\(task) of \(account) \(key ?? "*"): \(found ?? "none")"
    }

    /// The values of a page's two reads, as `Tasks.list` binds them.
    static func page(snapshot: Int64, account: String, key: String? = nil, statuses: String? = nil, priorities: String? = nil,
                     after: (Int64, String)? = nil, limit: Int64 = 10) -> [SQLiteValue] {
        [.integer(snapshot), .text(account), key.map { .text($0) } ?? .null, statuses.map { .text($0) } ?? .null,
         priorities.map { .text($0) } ?? .null, .integer(after?.0 ?? Int64.max), .text(after?.1 ?? ""), .integer(limit)]
    }

    /// `values` with PostgreSQL's byte budget (`TaskSQL.byteCut`), one no page here reaches.
    static func budgeted(_ values: [SQLiteValue], _ db: any StoreSession) -> [SQLiteValue] {
        db.dialect == .postgres ? values + [.integer(1 << 40)] : values
    }

    /// Both reads of a page: the unchanged tasks and the moved ones, each as `id sort_at`.
    static func list(_ db: any StoreSession, _ page: [SQLiteValue]) async throws -> String {
        let byKey = page[2] != .null
        let values = budgeted(page, db)
        let decode = { (row: any StoreRow) throws in "\(try WorkTask(row: row).id) \(try row.int64("sort_at"))" }
        let unchanged = try await db.rows(TaskSQL.unchanged(byKey: byKey, db.dialect), values, decode)
        let moved = try await db.rows(TaskSQL.moved(db.dialect), values, decode)
        return "unchanged \(unchanged) moved \(moved)"
    }

    static func counts(_ db: any StoreSession, _ key: String) async throws -> String {
        let counts = try await db.firstRow(TaskSQL.counts, [.text(key)]) { "\(try $0.int("open")) \(try $0.int("closed"))" }
        return "counts of \(key): \(counts ?? "none")"
    }

    static func used(_ db: any StoreSession, _ account: String) async throws -> String {
        "used by \(account): \(try await StorageQuota.used(db, accountID: account))"
    }

    static func moves(_ db: any StoreSession) async throws -> String {
        let moves = try await db.rows("SELECT task_id, seq, old_updated_at, at FROM task_moves ORDER BY task_id, seq", []) { row in
            "\(try row.text("task_id")) \(try row.int64("seq")) \(try row.int64("old_updated_at")) \(try row.int64("at"))"
        }
        return "moves: \(moves)"
    }

    static let tsk1 = "tsk_1 acc_1 key_1 Résumé ✓ 日本語|ünïcode 😀\ntwo lines| in_progress high notify true progress 40 "
        + "note half way agent 1 2 done - seen - host laptop"
    static let tsk2 = "tsk_2 acc_1 key_2 Done|| done low notify false progress - note - app 3 4 done 4 seen - host -"
    static let tsk3 = "tsk_3 acc_2 key_3 Gone with its key|x| todo urgent notify false progress - note - agent 5 5 done - seen - host -"

    @Test func aTaskReadByIDAnswersTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said: [String] = []
            for sql in [TaskSQL.get, TaskSQL.getForChange] {
                for (task, account, key) in [("tsk_1", "acc_1", nil), ("tsk_1", "acc_1", "key_1"), ("tsk_1", "acc_1", "key_2"),
                                             ("tsk_1", "acc_2", nil), ("tsk_3", "acc_2", nil), ("tsk_none", "acc_1", nil)] as [(String, String, String?)] {
                    said.append(try await Self.get(db, sql, task, account, key))
                }
            }
            for sql in [TaskSQL.getOfKey, TaskSQL.getOfKeyForChange] {
                for (task, key) in [("tsk_2", "key_2"), ("tsk_2", "key_1")] {
                    said.append(try await Self.get(db, sql, task, "acc_1", key))
                }
            }
            // A deleted key's task is gone for the account; the key's own read leaves the
            // check to the gate.
            try await db.begin()
            try await db.run("UPDATE keys SET deleted_at = 1 WHERE id = $1", "key_1")
            said.append(try await Self.get(db, TaskSQL.get, "tsk_1", "acc_1", nil))
            said.append(try await Self.get(db, TaskSQL.getForChange, "tsk_1", "acc_1", "key_1"))
            said.append(try await Self.get(db, TaskSQL.getOfKey, "tsk_1", "acc_1", "key_1"))
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "tsk_1 of acc_1 *: \(Self.tsk1)", "tsk_1 of acc_1 key_1: \(Self.tsk1)", "tsk_1 of acc_1 key_2: none",
            "tsk_1 of acc_2 *: none", "tsk_3 of acc_2 *: \(Self.tsk3)", "tsk_none of acc_1 *: none",
            "tsk_1 of acc_1 *: \(Self.tsk1) changed 2", "tsk_1 of acc_1 key_1: \(Self.tsk1) changed 2", "tsk_1 of acc_1 key_2: none",
            "tsk_1 of acc_2 *: none", "tsk_3 of acc_2 *: \(Self.tsk3) changed 5", "tsk_none of acc_1 *: none",
            "tsk_2 of acc_1 key_2: \(Self.tsk2)", "tsk_2 of acc_1 key_1: none",
            "tsk_2 of acc_1 key_2: \(Self.tsk2) changed 4", "tsk_2 of acc_1 key_1: none",
            "tsk_1 of acc_1 *: none", "tsk_1 of acc_1 key_1: none", "tsk_1 of acc_1 key_1: \(Self.tsk1)",
        ])
        #expect(postgres == sqlite)
    }

    @Test func aPageOfTheListAnswersTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said: [String] = []
            let pages: [(String, [SQLiteValue])] = [
                ("all", Self.page(snapshot: 42, account: "acc_1")),
                ("one row", Self.page(snapshot: 42, account: "acc_1", limit: 1)),
                ("key_1", Self.page(snapshot: 42, account: "acc_1", key: "key_1")),
                ("key_2 of acc_2", Self.page(snapshot: 42, account: "acc_2", key: "key_2")),
                ("acc_2", Self.page(snapshot: 42, account: "acc_2")),
                ("done", Self.page(snapshot: 42, account: "acc_1", statuses: ",done,")),
                ("todo or in progress", Self.page(snapshot: 42, account: "acc_1", statuses: ",todo,in_progress,")),
                ("high or low", Self.page(snapshot: 42, account: "acc_1", priorities: ",high,low,")),
                ("urgent", Self.page(snapshot: 42, account: "acc_1", priorities: ",urgent,")),
                ("done and high", Self.page(snapshot: 42, account: "acc_1", statuses: ",done,", priorities: ",high,")),
                ("after tsk_2", Self.page(snapshot: 42, account: "acc_1", after: (4, "tsk_2"))),
                ("after tsk_1", Self.page(snapshot: 42, account: "acc_1", after: (2, "tsk_1"))),
                ("after 2 tsk_2", Self.page(snapshot: 42, account: "acc_1", after: (2, "tsk_2"))),
                // tsk_1 moved at change 2 from 1; tsk_2 was made at 3 and changed at 4.
                ("snapshot 1", Self.page(snapshot: 1, account: "acc_1")),
                ("snapshot 1 after 1 tsk_1", Self.page(snapshot: 1, account: "acc_1", after: (1, "tsk_1"))),
                ("snapshot 3", Self.page(snapshot: 3, account: "acc_1")),
                ("snapshot 3 key_2", Self.page(snapshot: 3, account: "acc_1", key: "key_2")),
                ("snapshot 3 key_1", Self.page(snapshot: 3, account: "acc_1", key: "key_1")),
                ("snapshot 3 done", Self.page(snapshot: 3, account: "acc_1", statuses: ",done,")),
                ("snapshot 3 after 4 tsk_2", Self.page(snapshot: 3, account: "acc_1", after: (4, "tsk_2"))),
            ]
            for (name, values) in pages {
                said.append("\(name): \(try await Self.list(db, values))")
            }
            // A page stops at the row its caller says (`Tasks.list`'s byte budget).
            let first = try await db.rows(TaskSQL.unchanged(byKey: false, db.dialect),
                                          Self.budgeted(Self.page(snapshot: 42, account: "acc_1"), db),
                                          through: { _ in true }) { try $0.text("id") }
            said.append("through the first: \(first)")
            // A key deleted: its tasks leave both reads.
            try await db.begin()
            try await db.run("UPDATE keys SET deleted_at = 1 WHERE id = $1", "key_2")
            said.append("key_2 deleted: \(try await Self.list(db, Self.page(snapshot: 42, account: "acc_1")))")
            said.append("key_2 deleted, snapshot 3: \(try await Self.list(db, Self.page(snapshot: 3, account: "acc_1")))")
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            #"all: unchanged ["tsk_2 4", "tsk_1 2"] moved []"#,
            #"one row: unchanged ["tsk_2 4"] moved []"#,
            #"key_1: unchanged ["tsk_1 2"] moved []"#,
            #"key_2 of acc_2: unchanged [] moved []"#,
            #"acc_2: unchanged ["tsk_3 5"] moved []"#,
            #"done: unchanged ["tsk_2 4"] moved []"#,
            #"todo or in progress: unchanged ["tsk_1 2"] moved []"#,
            #"high or low: unchanged ["tsk_2 4", "tsk_1 2"] moved []"#,
            #"urgent: unchanged [] moved []"#,
            #"done and high: unchanged [] moved []"#,
            #"after tsk_2: unchanged ["tsk_1 2"] moved []"#,
            #"after tsk_1: unchanged [] moved []"#,
            #"after 2 tsk_2: unchanged ["tsk_1 2"] moved []"#,
            #"snapshot 1: unchanged [] moved ["tsk_1 1"]"#,
            #"snapshot 1 after 1 tsk_1: unchanged [] moved []"#,
            #"snapshot 3: unchanged ["tsk_1 2"] moved ["tsk_2 4"]"#,
            #"snapshot 3 key_2: unchanged [] moved ["tsk_2 4"]"#,
            #"snapshot 3 key_1: unchanged ["tsk_1 2"] moved []"#,
            #"snapshot 3 done: unchanged [] moved ["tsk_2 4"]"#,
            #"snapshot 3 after 4 tsk_2: unchanged ["tsk_1 2"] moved []"#,
            #"through the first: ["tsk_2"]"#,
            #"key_2 deleted: unchanged ["tsk_1 2"] moved []"#,
            #"key_2 deleted, snapshot 3: unchanged ["tsk_1 2"] moved []"#,
        ])
        #expect(postgres == sqlite)
    }

    @Test func aTaskMadeChangedSeenAndRemovedAnswersTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said = [try await Self.counts(db, "key_1"), try await Self.counts(db, "key_none"), try await Self.used(db, "acc_1"),
                        "seq: \(try await Tasks.currentSeq(db))"]
            try await db.begin()
            // Made (`Tasks.create`): the counter moved, the row, the key's count.
            said.append("next seq: \(try await Tasks.nextSeq(db))")
            said.append("made: \(try await db.run(TaskSQL.insert, "tsk_4", "acc_1", "key_1", "Nouveau ✓", "long enough", "todo", "medium", 1, nil, "note", "app", 100, 100, nil, nil, nil, 43))")
            try await Tasks.moveCount(db, keyID: "key_1", from: nil, to: .todo)
            said.append(try await Self.counts(db, "key_1"))
            said.append(try await Self.used(db, "acc_1"))
            said.append(try await Self.get(db, TaskSQL.getOfKeyForChange, "tsk_4", "acc_1", "key_1"))
            // Changed (`Tasks.update`): where it stood noted, old notes pruned, its fields.
            said.append("next seq: \(try await Tasks.nextSeq(db))")
            said.append("move: \(try await db.run(TaskSQL.insertMove, "tsk_4", 44, 100, 110))")
            said.append("pruned: \(try await db.run(TaskSQL.pruneMoves, 3))")
            said.append(try await Self.moves(db))
            said.append("changed: \(try await db.run(TaskSQL.update, "Nouveau", "", "done", "high", 0, 100, nil, 110, 110, 44, "tsk_4"))")
            try await Tasks.moveCount(db, keyID: "key_1", from: .todo, to: .done)
            said.append(try await Self.counts(db, "key_1"))
            said.append(try await Self.used(db, "acc_1"))
            said.append(try await Self.get(db, TaskSQL.getForChange, "tsk_4", "acc_1", nil))
            // Seen once.
            said.append("seen: \(try await db.run(TaskSQL.markSeen, 120, "tsk_4"))")
            said.append("seen again: \(try await db.run(TaskSQL.markSeen, 130, "tsk_4"))")
            said.append(try await Self.get(db, TaskSQL.getOfKey, "tsk_4", "acc_1", "key_1"))
            // The closed-task cap's oldest, never the task just closed.
            for (key, except) in [("key_1", "tsk_4"), ("key_1", ""), ("key_2", "tsk_4"), ("key_2", "tsk_2")] {
                let oldest = try await db.firstRow(TaskSQL.oldestClosed, [.text(key), .text(except)]) {
                    "\(try $0.text("id")) \(try $0.text("status"))"
                }
                said.append("oldest closed of \(key) but \(except): \(oldest ?? "none")")
            }
            // Removed (`Tasks.remove`), with its notes and registrations: tsk_1 has both.
            for task in ["tsk_1", "tsk_4"] {
                said.append("\(task) gone: \(try await db.run(TaskSQL.delete, .text(task))) "
                    + "\(try await db.run(TaskSQL.deleteMoves, .text(task))) \(try await db.run(TaskSQL.deleteRegistrations, .text(task)))")
            }
            try await Tasks.moveCount(db, keyID: "key_1", from: .done, to: nil)
            said.append(try await Self.counts(db, "key_1"))
            said.append(try await Self.used(db, "acc_1"))
            said.append(try await Self.moves(db))
            said.append("registrations: \(try await db.count("SELECT count(*) AS n FROM live_activities"))")
            said.append("seq: \(try await Tasks.currentSeq(db))")
            try await db.rollback()
            said.append("seq after the rollback: \(try await Tasks.currentSeq(db))")
            return said
        }
        // acc_1's text: tsk_1 54 bytes, tsk_2 4, its questions 23 and 16, its items 12, 3 and 5.
        #expect(sqlite == [
            "counts of key_1: 0 0", "counts of key_none: none", "used by acc_1: 117", "seq: 42",
            "next seq: 43", "made: 1", "counts of key_1: 1 0", "used by acc_1: 143",
            "tsk_4 of acc_1 key_1: tsk_4 acc_1 key_1 Nouveau ✓|long enough| todo medium notify true progress - note note app 100 100 "
                + "done - seen - host - changed 43",
            "next seq: 44", "move: 1", "pruned: 1", #"moves: ["tsk_4 44 100 110"]"#, "changed: 1",
            "counts of key_1: 0 1", "used by acc_1: 124",
            "tsk_4 of acc_1 *: tsk_4 acc_1 key_1 Nouveau|| done high notify false progress 100 note - app 100 110 "
                + "done 110 seen - host - changed 44",
            "seen: 1", "seen again: 0",
            "tsk_4 of acc_1 key_1: tsk_4 acc_1 key_1 Nouveau|| done high notify false progress 100 note - app 100 110 "
                + "done 110 seen 120 host -",
            "oldest closed of key_1 but tsk_4: none", "oldest closed of key_1 but : tsk_4 done",
            "oldest closed of key_2 but tsk_4: tsk_2 done", "oldest closed of key_2 but tsk_2: none",
            "tsk_1 gone: 1 0 1", "tsk_4 gone: 1 1 0",
            "counts of key_1: 0 0", "used by acc_1: 63", "moves: []", "registrations: 0", "seq: 44",
            "seq after the rollback: 42",
        ])
        #expect(postgres == sqlite)
    }
}
