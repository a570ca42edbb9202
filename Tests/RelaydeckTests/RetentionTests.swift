import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `overview.md#retention` on a clock the test moves.
@Suite struct RetentionTests {
    private let test: TestStore
    private let account: Account
    private let keyID: String

    init() async throws {
        test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        self.account = account
        keyID = keys[0].key.id
    }

    private func insertTask(_ id: String, status: String, updatedAt: Int64, of owner: (account: String, key: String)? = nil) throws {
        let (accountID, keyID) = owner ?? (account.id, self.keyID)
        try test.store.write { db in
            try db.statement("""
                INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, \
                created_at, updated_at, created_seq, changed_seq) VALUES (?, ?, ?, 't', '', ?, 'low', 1, 'agent', 0, ?, 0, 0)
                """).run(.text(id), .text(accountID), .text(keyID), .text(status), .integer(updatedAt))
            try db.execute("UPDATE keys SET \(status)_count = \(status)_count + 1 WHERE id = '\(keyID)'")
        }
    }

    /// Each account's expired tasks in a write of that account; a step still removes one batch
    /// in all, the oldest first, whichever accounts they are of.
    @Test func aStepRemovesOneBatchOfTasksAcrossAccountsOldestFirst() async throws {
        let (other, _, otherKeys) = try await test.account(withKeys: 1)
        let old = now() - Retention.closedTasks - 1_000
        for index in 0..<150 {
            try insertTask("tsk_a\(index)", status: "done", updatedAt: old + Int64(index) * 2)
            try insertTask("tsk_b\(index)", status: "done", updatedAt: old + Int64(index) * 2 + 1, of: (other.id, otherKeys[0].key.id))
        }
        let retention = Retention(store: test.store, clock: test.clock, hub: test.hub)
        #expect(try await retention.step())
        // The 200 oldest: 100 of each account.
        #expect(try test.rowCount("tasks") == 100)
        #expect(try await retention.step())
        #expect(try test.rowCount("tasks") == 0)
        #expect(try await retention.step() == false)
        let deleted = test.changes.filter { if case .taskDeleted = $0.event { true } else { false } }
        #expect(deleted.count == 300)
        #expect(Set(deleted.map(\.accountID)) == [account.id, other.id])
    }

    private func now() -> Int64 { test.clock.wallMillis }

    @Test func closedTasksGoNinetyDaysAfterTheirLastUpdateWithAnEvent() async throws {
        try insertTask("tsk_old_done", status: "done", updatedAt: now() - Retention.closedTasks - 1)
        try insertTask("tsk_old_cancelled", status: "cancelled", updatedAt: now() - Retention.closedTasks - 1)
        try insertTask("tsk_recent_done", status: "done", updatedAt: now() - Retention.closedTasks + 1)
        try insertTask("tsk_old_open", status: "todo", updatedAt: 0)
        let retention = Retention(store: test.store, clock: test.clock, hub: test.hub)
        #expect(try await retention.step())
        #expect(try await retention.step() == false)
        #expect(try test.rowCount("tasks") == 2)
        let deleted = test.changes.compactMap { change -> String? in
            if case .taskDeleted(let id, let key) = change.event, key == keyID { return id }
            return nil
        }
        #expect(Set(deleted) == ["tsk_old_done", "tsk_old_cancelled"])
        #expect(test.changes.last?.actor == .server)
        let counts = try await test.keys.get(accountID: account.id, keyID: keyID).counts
        #expect((counts.todo, counts.done, counts.cancelled) == (1, 1, 0))
    }

    @Test func webSessionsUnusedForThirtyDaysAndExpiredLoginLinksGo() async throws {
        let t = now()
        try test.store.write { db in
            for (id, used) in [("wss_idle", t - WebSignIn.sessionIdleMillis), ("wss_live", t - WebSignIn.sessionIdleMillis + 1)] {
                try db.statement("""
                    INSERT INTO web_sessions (id, secret_hash, account_id, created_at, last_used_at) VALUES (?, ?, ?, 0, ?)
                    """).run(.text(id), .blob(Array(id.utf8)), .text(account.id), .integer(used))
            }
            for (hash, expires) in [("expired", t), ("valid", t + 1)] {
                try db.statement("INSERT INTO web_login_links (token_hash, account_id, expires_at) VALUES (?, ?, ?)")
                    .run(.blob(Array(hash.utf8)), .text(account.id), .integer(expires))
            }
        }
        let retention = Retention(store: test.store, clock: test.clock, hub: test.hub)
        #expect(try await retention.step())
        #expect(try await retention.step() == false)
        let left = try test.store.read { db in
            (try db.rows("SELECT id FROM web_sessions", []) { try $0.text("id") },
             try db.rows("SELECT expires_at FROM web_login_links", []) { try $0.int64("expires_at") })
        }
        #expect(left.0 == ["wss_live"])
        #expect(left.1 == [t + 1])
    }

    @Test func inboxQuestionsActivityAndMovesGoAfterTheirTimes() async throws {
        let t = now()
        try test.store.write { db in
            for (id, created, read) in [("inb_unread_old", t - Retention.unreadItems - 1, nil),
                                        ("inb_unread_new", t - Retention.unreadItems + 1, nil),
                                        ("inb_read_old", t, t - Retention.readItems - 1),
                                        ("inb_read_new", t - Retention.unreadItems * 2, t - Retention.readItems + 1)] as [(String, Int64, Int64?)] {
                try db.statement("""
                    INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at, read_at) VALUES (?, ?, ?, 'message', 'x', ?, ?)
                    """).run(.text(id), .text(account.id), .text(keyID), .integer(created), read.map { .integer($0) } ?? .null)
            }
            for (id, status, closed) in [("qst_old", "answered", t - Retention.closedQuestions - 1),
                                         ("qst_new", "expired", t - Retention.closedQuestions + 1)] {
                try db.statement("""
                    INSERT INTO questions (id, account_id, key_id, prompt, kind, options, status, created_at, expires_at, closed_at) \
                    VALUES (?, ?, ?, 'p', 'confirm', '[]', ?, 0, 0, ?)
                    """).run(.text(id), .text(account.id), .text(keyID), .text(status), .integer(closed))
            }
            try db.statement("""
                INSERT INTO questions (id, account_id, key_id, prompt, kind, options, status, created_at, expires_at) \
                VALUES ('qst_pending', ?, ?, 'p', 'confirm', '[]', 'pending', 0, 0)
                """).run(.text(account.id), .text(keyID))
            for (id, at) in [("act_old", t - Retention.activity - 1), ("act_new", t - Retention.activity + 1)] {
                try db.statement("""
                    INSERT INTO activity (id, key_id, at, surface, action, status, duration_ms) VALUES (?, ?, ?, 'rest', 'a', 'ok', 1)
                    """).run(.text(id), .text(keyID), .integer(at))
            }
            for (seq, at) in [(1, t - Retention.taskMoves - 1), (2, t)] as [(Int64, Int64)] {
                try db.statement("INSERT INTO task_moves (task_id, seq, old_updated_at, at) VALUES ('tsk_x', ?, 0, ?)")
                    .run(.integer(seq), .integer(at))
            }
        }
        let retention = Retention(store: test.store, clock: test.clock, hub: test.hub)
        while try await retention.step() {}
        #expect(try test.ids("inbox_items") == ["inb_read_new", "inb_unread_new"])
        #expect(try test.ids("questions") == ["qst_new", "qst_pending"])
        #expect(try test.ids("activity") == ["act_new"])
        #expect(try test.rowCount("task_moves") == 1)
    }

    @Test(arguments: Retention.SQL.all)
    func everyStatementCompiles(sql: String) throws {
        try test.store.read { db in _ = try db.prepare(sql) }
    }
}

extension TestStore {
    func ids(_ table: String) throws -> [String] {
        try store.read { db in
            let statement = try db.prepare("SELECT id FROM \(table) ORDER BY id")
            var ids: [String] = []
            while let row = try statement.nextRow() { ids.append(try row.text("id")) }
            return ids
        }
    }
}
