import Clock
import EventLoop
import Postgres
import PostgresStore
@testable import Relaydeck
import Testing

/// `Retention` on a real PostgreSQL database, as `RetentionTests` checks it on SQLite: closed
/// tasks go 90 days after their last update with `task.deleted` from the server and their
/// key's counts and text, and inbox items, questions, activity, the list's move notes, web
/// sessions and login links after their times, in batches until nothing is due.
@Suite struct RetentionOnPostgresTests {
    typealias Domain = TasksOnPostgresTests.Domain

    static func ids(_ test: Domain, _ table: String) throws -> [String] {
        try test.db.driver.query(test.db.connection, "SELECT id FROM \(table) WHERE key_id = $1 ORDER BY id", [.text(test.keys[0].id)])
            .map { try $0.text("id") }
    }

    /// Two nodes' retention at once (two connections, two hubs): each expired task is taken
    /// by one of them (`SKIP LOCKED`), so its `task.deleted` is recorded once in all. (A step
    /// may also end in PostgreSQL's deadlock error, the two updating the same keys' counts in
    /// another order: it rolls back whole, and a later step does its part.)
    @Test func twoNodesRetentionAtOnceDeletesEachTaskOnce() throws {
        let test = try Domain()
        for name in ["a", "b", "c", "d"] { _ = try test.make(test.agent(), name, status: .done) }
        test.clock.advance(millis: Retention.closedTasks + 1)
        let otherHub = EventHub()
        var publishedOnOther: [Change] = []
        otherHub.subscribe { publishedOnOther.append($0) }
        let here = Retention(store: test.db.store, clock: test.clock, hub: test.hub)
        let there = Retention(store: try test.db.driver.sessionStore(test.db.database), clock: test.clock, hub: otherHub)
        let before = test.published.count
        var ended = 0
        for retention in [here, there] {
            test.db.driver.loop.startTask {
                _ = try? await retention.step()
                ended += 1
            }
        }
        test.db.driver.run { ended == 2 }
        while try test.run({ try await here.step() }) {}
        let deleted = (test.published(since: before) + publishedOnOther).compactMap { change -> String? in
            guard case .taskDeleted(let id, _) = change.event else { return nil }
            return id
        }
        // The four, and the filled store's done task, each once.
        #expect(deleted.count == 5 && Set(deleted).count == 5, "\(deleted)")
    }

    @Test func closedTasksGoNinetyDaysAfterTheirLastUpdateWithAnEventOnPostgreSQL() throws {
        let test = try Domain()
        let keyID = test.keys[0].id
        var made: [String: WorkTask] = [:]
        for (name, status) in [("old done", WorkTask.Status.done), ("old cancelled", .cancelled), ("old open", .todo)] {
            made[name] = try test.make(test.agent(), name, status: status, description: "gone")
        }
        test.clock.advance(millis: 2)
        made["recent done"] = try test.make(test.agent(), "recent done", status: .done)
        test.clock.advance(millis: Retention.closedTasks - 1)
        let retention = Retention(store: test.db.store, clock: test.clock, hub: test.hub)
        let before = test.published.count
        #expect(try test.run { try await retention.step() })
        #expect(try test.run { try await retention.step() } == false)
        // The filled store's done task is long past its time too.
        let deleted = test.published(since: before)
        let gone = deleted.compactMap { change -> String? in
            guard case .taskDeleted(let id, let key) = change.event else { return nil }
            return "\(id) \(key)"
        }
        #expect(Set(gone) == ["\(made["old done"]!.id) \(keyID)", "\(made["old cancelled"]!.id) \(keyID)", "tsk_2 key_2"])
        #expect(gone.count == deleted.count)
        #expect(deleted.allSatisfy { $0.actor == .server })
        #expect(deleted.filter { $0.accountID == test.account.id }.count == 2)
        #expect(try Set(Self.ids(test, "tasks")) == [made["old open"]!.id, made["recent done"]!.id])
        #expect(try test.counts() == "1 0 1 0")
        // "old open" 8 + 4 bytes, "recent done" 11.
        #expect(try test.count("SELECT text_bytes AS n FROM accounts WHERE id = '\(test.account.id)'") == 23)
        #expect(try test.count("SELECT count(*) AS n FROM tasks WHERE account_id = 'acc_1'") == 1)
    }

    @Test func itemsQuestionsActivityMovesSessionsAndLinksGoAfterTheirTimesOnPostgreSQL() throws {
        let test = try Domain()
        let now = test.clock.wallMillis
        let (account, keyID) = (test.account.id, test.keys[0].id)
        for (id, created, read) in [("inb_unread_old", now - Retention.unreadItems - 1, "NULL"),
                                    ("inb_unread_new", now - Retention.unreadItems + 1, "NULL"),
                                    ("inb_read_old", now, "\(now - Retention.readItems - 1)"),
                                    ("inb_read_new", now - Retention.unreadItems * 2, "\(now - Retention.readItems + 1)")] {
            try test.execute("""
                INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at, read_at) \
                VALUES ('\(id)', '\(account)', '\(keyID)', 'message', 'x', \(created), \(read))
                """)
        }
        for (id, status, closed) in [("qst_old", "answered", "\(now - Retention.closedQuestions - 1)"),
                                     ("qst_new", "expired", "\(now - Retention.closedQuestions + 1)"), ("qst_pending", "pending", "NULL")] {
            try test.execute("""
                INSERT INTO questions (id, account_id, key_id, prompt, kind, options, status, created_at, expires_at, closed_at) \
                VALUES ('\(id)', '\(account)', '\(keyID)', 'p', 'confirm', '[]', '\(status)', 0, 0, \(closed))
                """)
        }
        for (id, at) in [("act_old", now - Retention.activity - 1), ("act_new", now - Retention.activity + 1)] {
            try test.execute("""
                INSERT INTO activity (id, key_id, at, surface, action, status, duration_ms) VALUES ('\(id)', '\(keyID)', \(at), 'rest', 'a', 'ok', 1)
                """)
        }
        for (seq, at) in [(100, now - Retention.taskMoves - 1), (101, now)] as [(Int64, Int64)] {
            try test.execute("INSERT INTO task_moves (task_id, seq, old_updated_at, at) VALUES ('tsk_x', \(seq), 0, \(at))")
        }
        for (id, used) in [("wss_idle", now - WebSignIn.sessionIdleMillis), ("wss_live", now - WebSignIn.sessionIdleMillis + 1)] {
            try test.execute("""
                INSERT INTO web_sessions (id, secret_hash, account_id, created_at, last_used_at) \
                VALUES ('\(id)', '\\x\(id.utf8.map { String($0, radix: 16) }.joined())', '\(account)', 0, \(used))
                """)
        }
        for (hash, expires) in [("a1", now), ("a2", now + 1)] {
            try test.execute("INSERT INTO web_login_links (token_hash, account_id, expires_at) VALUES ('\\x\(hash)', '\(account)', \(expires))")
        }
        let retention = Retention(store: test.db.store, clock: test.clock, hub: test.hub)
        var steps = 0
        while try test.run({ try await retention.step() }) { steps += 1 }
        #expect(steps >= 1)
        #expect(try Self.ids(test, "inbox_items") == ["inb_read_new", "inb_unread_new"])
        #expect(try Self.ids(test, "questions") == ["qst_new", "qst_pending"])
        #expect(try Self.ids(test, "activity") == ["act_new"])
        #expect(try test.count("SELECT count(*) AS n FROM task_moves WHERE task_id = 'tsk_x'") == 1)
        #expect(try test.count("SELECT count(*) AS n FROM web_sessions WHERE account_id = '\(account)'") == 1)
        #expect(try test.count("SELECT expires_at AS n FROM web_login_links WHERE account_id = '\(account)'") == now + 1)
        // What is left of the account's text: two items' "x", two questions' "p" and "[]".
        #expect(try test.count("SELECT text_bytes AS n FROM accounts WHERE id = '\(account)'") == 8)
    }

    @Test func aStepDeletesAtMostItsBatchOfEachKindOnPostgreSQL() throws {
        let test = try Domain()
        let (account, keyID) = (test.account.id, test.keys[0].id)
        for index in 0..<(Retention.batchSize + 5) {
            try test.execute("""
                INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at) \
                VALUES ('inb_\(index)', '\(account)', '\(keyID)', 'message', 'old', 0)
                """)
        }
        let retention = Retention(store: test.db.store, clock: test.clock, hub: test.hub)
        #expect(try test.run { try await retention.step() })
        #expect(try Self.ids(test, "inbox_items").count == 5)
        #expect(try test.run { try await retention.step() })
        #expect(try Self.ids(test, "inbox_items").isEmpty)
        #expect(try test.run { try await retention.step() } == false)
    }
}
