import Clock
import Postgres
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `Tasks` on a real PostgreSQL database (`PostgresSessionStore` over the filled store's
/// copy, `PostgresSessionStoreTests.Filled`), with the behaviour its SQLite tests check: an
/// agent's task and its defaults, a key's reach and the account's, the key's counts, the
/// changes published after the COMMIT and none after a rollback, a deletion with what hangs on
/// the task, and the list's filters.
@Suite struct TasksOnPostgresTests {
    /// The services that write tasks on the filled store's copy, a new account with two keys,
    /// and a hub whose subscriber keeps each change published.
    final class Domain {
        let db: PostgresSessionStoreTests.Filled
        let clock = ManualClock(wallMillis: 1_760_112_000_000)
        let random = SystemRandom()
        let hub = EventHub()
        let inbox: Inbox
        let tasks: Tasks
        let account: Account
        let keys: [Key]
        /// Every change the hub published, in order.
        private(set) var published: [Change] = []

        init() throws {
            db = try PostgresSessionStoreTests.Filled()
            inbox = Inbox(store: db.store, clock: clock, random: random, hub: hub)
            tasks = Tasks(store: db.store, clock: clock, random: random, hub: hub, inbox: inbox)
            let accounts = Accounts(store: db.store, clock: clock, random: random, hub: hub)
            let keys = Keys(store: db.store, clock: clock, random: random, hub: hub)
            (account, self.keys) = try db.run {
                let account = try await accounts.create().account
                var made: [Key] = []
                for label in ["first", "second"] {
                    made.append(try await keys.create(accountID: account.id, label: Domain.checked(label, .keyLabel)).key)
                }
                return (account, made)
            }
            hub.subscribe { [unowned self] change in published.append(change) }
        }

        var person: Principal { .account(accountID: account.id) }

        func agent(_ index: Int = 0) -> Principal {
            .key(KeyUse(keyID: keys[index].id, accountID: account.id, lastUsedAt: nil, lastHost: nil, scopes: .all))
        }

        func run<T>(_ body: @escaping () async throws -> T) throws -> T {
            try db.run(body)
        }

        /// A task made by `principal` (for the first key when the account makes it).
        @discardableResult
        func make(_ principal: Principal, _ title: String = "Write tests", status: WorkTask.Status? = nil,
                  priority: WorkTask.Priority? = nil, description: String? = nil, host: String? = nil) throws -> WorkTask {
            let new = NewTask(title: Self.checked(title, .taskTitle), description: description.map { Self.checked($0, .taskDescription) },
                              status: status, priority: priority)
            let keyID = principal.keyID == nil ? keys[0].id : nil
            return try run { try await self.tasks.create(principal, keyID: keyID, new, host: host) }
        }

        func update(_ principal: Principal, _ taskID: String, _ patch: TaskPatch) throws -> WorkTask {
            try run { try await self.tasks.update(principal, taskID: taskID, patch) }
        }

        func get(_ principal: Principal, _ taskID: String) throws -> WorkTask {
            try run { try await self.tasks.get(principal, taskID: taskID) }
        }

        func list(_ principal: Principal, _ filter: TaskFilter = TaskFilter(), after cursor: TaskCursor? = nil) throws
            -> (tasks: [WorkTask], next: TaskCursor?) {
            try run { try await self.tasks.list(principal, filter, after: cursor) }
        }

        /// The key's counts (`rest-api.md#key`) as stored.
        func counts(_ index: Int = 0) throws -> String {
            let row = try db.driver.query(db.connection, """
                SELECT todo_count, in_progress_count, done_count, cancelled_count FROM keys WHERE id = $1
                """, [.text(keys[index].id)])[0]
            return try ["todo_count", "in_progress_count", "done_count", "cancelled_count"].map { String(try row.int64($0)) }
                .joined(separator: " ")
        }

        func count(_ sql: String) throws -> Int64 {
            try db.count(sql)
        }

        /// Statements run as they are, one at a time (the extended protocol takes one).
        func execute(_ statements: String...) throws {
            for sql in statements { _ = try db.driver.query(db.connection, sql) }
        }

        /// The changes published since `count` were.
        func published(since count: Int) -> [Change] {
            Array(published[count...])
        }

        static func checked(_ text: String, _ rule: TextRule) -> CheckedText {
            switch rule.check(text) {
            case .success(let checked): return checked
            case .failure(let problem): fatalError("not a valid text in a test: \(problem.message)")
            }
        }
    }

    static let notFound = DomainError.notFound("Task not found.")

    @Test func anAgentsTaskHasTheDefaultsItsHostIsSeenAtOnceAndIsPublishedOnPostgreSQL() throws {
        let test = try Domain()
        let before = test.published.count
        let task = try test.make(test.agent(), host: "studio-mac")
        #expect(task == WorkTask(
            id: task.id, accountID: test.account.id, keyID: test.keys[0].id, title: "Write tests", description: "", status: .todo,
            priority: .medium, notify: true, progress: nil, statusNote: nil, source: .agent, createdAt: test.clock.wallMillis,
            updatedAt: test.clock.wallMillis, completedAt: nil, seenAt: test.clock.wallMillis, host: "studio-mac"))
        #expect(try test.get(test.person, task.id) == task)
        #expect(test.published(since: before) == [Change(accountID: test.account.id, event: .taskCreated(task), actor: .key(test.keys[0].id))])
        #expect(try test.counts() == "1 0 0 0")
    }

    /// The person's task, change and deletion each leave an item in the key's inbox, in the
    /// same write (`inbox.md#inbox-item`).
    @Test func thePersonsTaskIsFromTheAppUnseenWithoutHostAndTellsTheKeysInboxOnPostgreSQL() throws {
        let test = try Domain()
        let keyID = test.keys[0].id
        let account = test.account.id
        let before = test.published.count
        let task = try test.make(test.person, host: "ignored")
        #expect(task.source == .app && task.seenAt == nil && task.host == nil)
        test.clock.advance(millis: 1)
        let done = try test.update(test.person, task.id, TaskPatch(status: .done))
        try test.run { try await test.tasks.delete(test.person, taskID: task.id) }
        #expect(test.published(since: before) == [
            Change(accountID: account, event: .taskCreated(task), actor: .account),
            Change(accountID: account, event: .inboxUpdated(keyID: keyID, unread: 1), actor: .account),
            Change(accountID: account, event: .taskUpdated(done), actor: .account, previous: task),
            Change(accountID: account, event: .inboxUpdated(keyID: keyID, unread: 2), actor: .account),
            Change(accountID: account, event: .taskDeleted(taskID: task.id, keyID: keyID), actor: .account),
            Change(accountID: account, event: .inboxUpdated(keyID: keyID, unread: 3), actor: .account),
        ])
        #expect(try test.count("SELECT count(*) AS n FROM inbox_items WHERE key_id = '\(keyID)' AND task_id = '\(task.id)'") == 3)
        #expect(try test.counts() == "0 0 0 0")
    }

    @Test func doneSetsProgressAndCompletedAtLeavingDoneClearsItAndTheCountsFollowOnPostgreSQL() throws {
        let test = try Domain()
        let task = try test.make(test.agent())
        test.clock.advance(millis: 5_000)
        let done = try test.update(test.agent(), task.id, TaskPatch(status: .done, progress: .some(40)))
        #expect(done.progress == 100 && done.completedAt == task.createdAt + 5_000 && done.updatedAt == done.completedAt)
        #expect(try test.get(test.agent(), task.id) == done)
        #expect(try test.counts() == "0 0 1 0")
        let reopened = try test.update(test.agent(), task.id, TaskPatch(status: .inProgress, progress: .some(nil)))
        #expect(reopened.completedAt == nil && reopened.progress == nil && reopened.status == .inProgress)
        #expect(try test.counts() == "0 1 0 0")
        #expect(test.published.suffix(2) == [
            Change(accountID: test.account.id, event: .taskUpdated(done), actor: .key(test.keys[0].id), previous: task),
            Change(accountID: test.account.id, event: .taskUpdated(reopened), actor: .key(test.keys[0].id), previous: done),
        ])
    }

    @Test func aPatchThatChangesNothingWritesAndPublishesNothingOnPostgreSQL() throws {
        let test = try Domain()
        let task = try test.make(test.agent())
        let before = test.published.count
        test.clock.advance(millis: 9_000)
        let same = try test.update(test.agent(), task.id, TaskPatch(
            title: Domain.checked("Write  tests", .taskTitle), status: .todo, priority: .medium, notify: true, progress: .some(nil)))
        #expect(same == task)
        #expect(test.published.count == before)
        #expect(try test.get(test.agent(), task.id).updatedAt == task.updatedAt)
    }

    @Test func aKeyReachesOnlyItsOwnTasksAndTheAccountOnlyThoseOfLiveKeysOnPostgreSQL() throws {
        let test = try Domain()
        let mine = try test.make(test.agent(0), "mine")
        test.clock.advance(millis: 1)
        let theirs = try test.make(test.agent(1), "theirs")
        #expect(throws: Self.notFound) { try test.get(test.agent(0), theirs.id) }
        #expect(throws: Self.notFound) { try test.update(test.agent(0), theirs.id, TaskPatch(notify: false)) }
        #expect(throws: Self.notFound) { try test.run { try await test.tasks.delete(test.agent(0), taskID: theirs.id) } }
        #expect(try test.list(test.agent(0)).tasks.map(\.id) == [mine.id])
        #expect(try test.list(test.person).tasks.map(\.id) == [theirs.id, mine.id])
        // The filled store's own account and its tasks are another account's.
        #expect(throws: Self.notFound) { try test.get(test.person, "tsk_1") }
        #expect(try test.list(.account(accountID: "acc_1")).tasks.map(\.id) == ["tsk_2", "tsk_1"])
        try test.execute("UPDATE keys SET deleted_at = 1 WHERE id = '\(test.keys[1].id)'")
        #expect(try test.list(test.person).tasks.map(\.id) == [mine.id])
        #expect(try test.list(test.person, TaskFilter(keyID: test.keys[1].id)).tasks.isEmpty)
        #expect(throws: Self.notFound) { try test.get(test.person, theirs.id) }
    }

    @Test func aDeletionTakesTheTasksCountMovesRegistrationsAndPendingQuestionsOnPostgreSQL() throws {
        let test = try Domain()
        let task = try test.make(test.agent())
        let keyID = test.keys[0].id
        let account = test.account.id
        try test.execute("""
            INSERT INTO questions (id, account_id, key_id, task_id, prompt, kind, options, status, created_at, expires_at)
                VALUES ('qst_a', '\(account)', '\(keyID)', '\(task.id)', 'Go?', 'confirm', '[]', 'pending', 1, 9999999999999)
            """,
            "INSERT INTO task_moves (task_id, seq, old_updated_at, at) VALUES ('\(task.id)', 100, 1, 1)",
            "INSERT INTO live_activities (task_id, device_id, account_id, push_token, updated_at) VALUES ('\(task.id)', 'dev_1', 'acc_1', 'ff', 1)")
        let before = test.published.count
        test.clock.advance(millis: 7)
        try test.run { try await test.tasks.delete(test.agent(), taskID: task.id) }
        let cancelled = try test.run { try await test.db.store.reading { try await Questions.load($0, id: "qst_a") } }
        #expect(cancelled?.status == .cancelled)
        #expect(try test.count("SELECT closed_at AS n FROM questions WHERE id = 'qst_a'") == test.clock.wallMillis)
        #expect(test.published(since: before) == [
            Change(accountID: account, event: .taskDeleted(taskID: task.id, keyID: keyID), actor: .key(keyID)),
            Change(accountID: account, event: .questionUpdated(try #require(cancelled)), actor: .server),
        ])
        #expect(try test.counts() == "0 0 0 0")
        for table in ["task_moves", "live_activities"] {
            #expect(try test.count("SELECT count(*) AS n FROM \(table) WHERE task_id = '\(task.id)'") == 0, "\(table)")
        }
        #expect(throws: Self.notFound) { try test.get(test.agent(), task.id) }
    }

    @Test func aWriteRolledBackPublishesNothingAndOneCommittedPublishesAfterItsCommitOnPostgreSQL() throws {
        let test = try Domain()
        let task = try test.make(test.agent())
        struct Boom: Error {}
        let before = test.published.count
        var seenInside: [Int] = []
        func remove(thenThrow: Bool) async throws {
            try await test.db.store.writing(hub: test.hub) { db, turn in
                try await Tasks.remove(db, turn, accountID: task.accountID, task.id, keyID: task.keyID, status: task.status,
                                       actor: .server, now: test.clock.wallMillis)
                seenInside.append(test.published.count - before)
                if thenThrow { throw Boom() }
            }
        }
        #expect(throws: Boom.self) { try test.run { try await remove(thenThrow: true) } }
        #expect(test.published.count == before)
        #expect(try test.get(test.agent(), task.id) == task)
        #expect(try test.counts() == "1 0 0 0")
        try test.run { try await remove(thenThrow: false) }
        #expect(seenInside == [0, 0])
        #expect(test.published(since: before)
            == [Change(accountID: task.accountID, event: .taskDeleted(taskID: task.id, keyID: task.keyID), actor: .server)])
        #expect(try test.counts() == "0 0 0 0")
    }

    @Test func theListFiltersByStatusPriorityAndKeyOnPostgreSQL() throws {
        let test = try Domain()
        let a = try test.make(test.agent(), "a", priority: .high)
        test.clock.advance(millis: 1)
        let b = try test.make(test.agent(), "b", status: .done)
        test.clock.advance(millis: 1)
        let c = try test.make(test.agent(), "c", status: .inProgress, priority: .urgent)
        test.clock.advance(millis: 1)
        let d = try test.make(test.agent(1), "d")
        func ids(_ filter: TaskFilter) throws -> [String] { try test.list(test.person, filter).tasks.map(\.id) }
        #expect(try ids(TaskFilter(statuses: [.todo, .inProgress])) == [d.id, c.id, a.id])
        #expect(try ids(TaskFilter(priorities: [.medium])) == [d.id, b.id])
        #expect(try ids(TaskFilter(statuses: [.inProgress], priorities: [.high])) == [])
        #expect(try ids(TaskFilter(keyID: test.keys[0].id)) == [c.id, b.id, a.id])
        #expect(try ids(TaskFilter(keyID: test.keys[0].id, statuses: [.done, .cancelled])) == [b.id])
    }

    @Test func markingSeenSetsSeenAtOnceAndPublishesItOnPostgreSQL() throws {
        let test = try Domain()
        let made = try test.make(test.agent())
        // As the person's task would be: not seen yet.
        try test.execute("UPDATE tasks SET seen_at = NULL WHERE id = '\(made.id)'")
        let unseen = try test.get(test.agent(), made.id)
        guard case .key(let use) = test.agent() else { return }
        let before = test.published.count
        test.clock.advance(millis: 50)
        let seen = try test.run { try await test.tasks.markSeen(use, [unseen]) }
        #expect(seen.map(\.seenAt) == [test.clock.wallMillis])
        #expect(try test.get(test.agent(), made.id) == seen[0])
        #expect(seen[0].updatedAt == unseen.updatedAt)
        #expect(test.published(since: before)
            == [Change(accountID: test.account.id, event: .taskUpdated(seen[0]), actor: .key(use.keyID), previous: unseen)])
        // Another key's task is given as it is.
        test.clock.advance(millis: 50)
        let other = KeyUse(keyID: test.keys[1].id, accountID: test.account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)
        #expect(try test.run { try await test.tasks.markSeen(other, [unseen]) } == [unseen])
        #expect(test.published.count == before + 1)
    }
}
