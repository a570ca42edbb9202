import Clock
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// The storage quota (`StorageQuota`): every path that adds, changes or removes text moves
/// the account's count in its own transaction (migration 8's triggers), and only a write
/// that grows the text past the limit is refused.
@Suite struct StorageQuotaTests {
    let test: TestStore
    let questions: Questions
    let account: Account
    let keys: [Key]

    init() async throws {
        test = try TestStore(.memory)
        questions = Questions(store: test.store, clock: test.clock, random: test.random, hub: test.hub, inbox: test.inbox)
        let (account, _, made) = try await test.account(withKeys: 2)
        self.account = account
        keys = made.map(\.key)
    }

    var used: Int {
        get async throws { try await test.store.reading { db in try await StorageQuota.used(db, accountID: account.id) } }
    }

    func keyBytes(_ key: Key) throws -> Int {
        try test.store.read { db in
            try db.firstRow("SELECT text_bytes FROM keys WHERE id = ?", [.text(key.id)]) { try $0.int("text_bytes") } ?? -1
        }
    }

    /// The sum of the account's keys' counts (migration 8), deleted keys included: what the
    /// account's own count (migration 14) must always equal.
    func keysSum(_ accountID: String? = nil) throws -> Int {
        try test.store.read { db in
            try db.firstRow("SELECT coalesce(sum(text_bytes), 0) AS bytes FROM keys WHERE account_id = ?",
                            [.text(accountID ?? account.id)]) { try $0.int("bytes") } ?? -1
        }
    }

    /// The text of the account counted the slow way: what the kept count must always equal.
    func scanned() throws -> Int {
        try test.store.read { db in
            try db.firstRow("""
                SELECT coalesce((SELECT sum(length(CAST(title AS BLOB)) + length(CAST(description AS BLOB)) \
                    + coalesce(length(CAST(status_note AS BLOB)), 0)) FROM tasks WHERE account_id = ?1), 0) \
                + coalesce((SELECT sum(length(CAST(prompt AS BLOB)) + length(CAST(options AS BLOB)) \
                    + coalesce(length(CAST(answer AS BLOB)), 0)) FROM questions WHERE account_id = ?1), 0) \
                + coalesce((SELECT sum(length(CAST(text AS BLOB))) FROM inbox_items WHERE account_id = ?1), 0) AS bytes
                """, [.text(account.id)]) { try $0.int("bytes") } ?? -1
        }
    }

    func agent(_ index: Int = 0) -> Principal { test.agent(keys[index]) }

    func title(_ text: String) -> CheckedText { checked(text, .taskTitle) }
    func description(_ text: String) -> CheckedText { checked(text, .taskDescription) }

    @Test func aTaskCountsTheUTF8BytesOfItsTitleDescriptionAndNote() async throws {
        #expect(try await used == 0)
        // "é" is 2 bytes, "👍🏽" 8: bytes are counted, not characters.
        let task = try await test.tasks.create(agent(), keyID: nil, NewTask(title: title("Café"), description: description("👍🏽 ok"),
                                                                     statusNote: checked("note", .statusNote)), host: nil)
        #expect(try await used == 5 + 11 + 4)
        #expect(try keyBytes(keys[0]) == 20 && keyBytes(keys[1]) == 0)
        _ = try await test.tasks.update(agent(), taskID: task.id, TaskPatch(description: description(String(repeating: "x", count: 100))))
        #expect(try await used == 5 + 100 + 4)
        _ = try await test.tasks.update(agent(), taskID: task.id, TaskPatch(title: title("C"), statusNote: .some(nil)))
        #expect(try await used == 1 + 100)
        // A change of anything else leaves the count.
        _ = try await test.tasks.update(agent(), taskID: task.id, TaskPatch(status: .inProgress, progress: .some(40)))
        #expect(try await used == 101)
        try await test.tasks.delete(agent(), taskID: task.id)
        #expect(try await used == 0)
    }

    @Test func thePersonsChangesCountTheInboxLinesTheyLeave() async throws {
        let person = Principal.account(accountID: account.id)
        let task = try await test.tasks.create(person, keyID: keys[1].id, NewTask(title: title("Ship it")), host: nil)
        _ = try await test.tasks.update(person, taskID: task.id, TaskPatch(status: .done))
        try await test.tasks.delete(person, taskID: task.id)
        #expect(try test.rowCount("inbox_items") == 3)
        let total = try await used
        #expect(try total == scanned() && total > 0)
        #expect(try keyBytes(keys[0]) == 0)
    }

    @Test func questionsCountPromptOptionsAndAnswerAndMessagesTheirText() async throws {
        let asked = try await questions.ask(accountID: account.id, keyID: keys[0].id, Questions.Draft(
            prompt: checked("Which one?", .questionPrompt), kind: .choice,
            options: [checked("Red", .questionOption), checked("Blue", .questionOption)], taskID: nil, expiresIn: 3_600))
        #expect(try await used == 10 + #"["Red","Blue"]"#.utf8.count)
        _ = try await questions.answer(accountID: account.id, id: asked.id, "Blue")
        // The answer, and the key's `answer` item that carries it.
        #expect(try await used == 10 + 14 + 4 + 4)
        let person = Principal.account(accountID: account.id)
        _ = try await test.inbox.send(person, to: .keyID(keys[1].id), text: checked("Stop ✋", .messageText), taskID: nil)
        #expect(try await used == 32 + 8)
        #expect(try await used == scanned())
    }

    @Test func retentionAndTheClosedTaskCapTakeTheirTextOffTheCount() async throws {
        let task = try await test.tasks.create(agent(), keyID: nil, NewTask(title: title("Old"), status: .done), host: nil)
        let asked = try await questions.ask(accountID: account.id, keyID: keys[0].id, Questions.Draft(
            prompt: checked("Ok?", .questionPrompt), kind: .confirm, options: [], taskID: nil, expiresIn: 60))
        try await questions.cancel(accountID: account.id, keyID: keys[0].id, id: asked.id)
        _ = try await test.inbox.send(agent(1), to: .keyID(keys[0].id), text: checked("Hello", .messageText), taskID: nil)
        #expect(try await used > 0)
        test.clock.advance(millis: Retention.closedTasks + 1)
        let retention = Retention(store: test.store, clock: test.clock, hub: test.hub)
        while try await retention.step() {}
        #expect(try test.rowCount("tasks") + test.rowCount("questions") + test.rowCount("inbox_items") == 0)
        #expect(try await used == 0 && keysSum() == 0)
        _ = task

        // The cap: the 5,001st closed task removes the oldest, and its text.
        try test.store.write { db in
            try db.execute("UPDATE keys SET done_count = \(Tasks.maxClosedPerKey) WHERE id = '\(keys[0].id)'")
        }
        _ = try await test.tasks.create(agent(), keyID: nil, NewTask(title: title("First closed"), status: .done), host: nil)
        test.clock.advance(millis: 1)
        _ = try await test.tasks.create(agent(), keyID: nil, NewTask(title: title("Second"), status: .done), host: nil)
        #expect(try test.rowCount("tasks") == 1)
        #expect(try await used == 6 && keysSum() == 6 && scanned() == 6)
    }

    @Test func aDeletedKeysTextCountsUntilThePurgeHasRemovedIt() async throws {
        _ = try await test.tasks.create(agent(0), keyID: nil, NewTask(title: title("Mine"), description: description("abc")), host: nil)
        for _ in 0..<3 {
            _ = try await test.tasks.create(agent(1), keyID: nil, NewTask(title: title("Other")), host: nil)
        }
        #expect(try await used == 7 + 15)
        try await test.keys.delete(accountID: account.id, keyID: keys[1].id)
        #expect(try await used == 22)
        let purger = Purger(store: test.store)
        // One step at a time: the account's count follows every batch the purge deletes.
        while try await purger.step() {
            #expect(try await used == keysSum())
        }
        #expect(try await used == 7 && keysSum() == 7)
        try await test.accounts.delete(account.id)
        while try await purger.step() {}
        #expect(try await used == 0 && test.rowCount("keys") == 0)
    }

    @Test func anotherAccountsWritesLeaveTheCountAlone() async throws {
        let (other, _, otherKeys) = try await test.account(withKeys: 1)
        let task = try await test.tasks.create(test.agent(otherKeys[0].key), keyID: nil, NewTask(title: title("Elsewhere")), host: nil)
        _ = try await test.tasks.update(test.agent(otherKeys[0].key), taskID: task.id, TaskPatch(description: description("More")))
        #expect(try await used == 0)
        let theirs = try await test.store.reading { db in try await StorageQuota.used(db, accountID: other.id) }
        let theirKeys = try keysSum(other.id)
        #expect(theirs == 9 + 4 && theirKeys == theirs)
    }

    @Test func aWriteThatWouldPassTheLimitIsAConflictAndWritesNothing() async throws {
        test.store.quota = StorageQuota(limit: 100)
        let task = try await test.tasks.create(agent(), keyID: nil, NewTask(title: title(String(repeating: "a", count: 90))), host: nil)
        let full = DomainError.storageFull(test.store.quota.fullMessage)
        #expect(test.store.quota.fullMessage.contains("100 bytes"))
        await #expect(throws: full) {
            try await test.tasks.create(agent(1), keyID: nil, NewTask(title: title(String(repeating: "b", count: 11))), host: nil)
        }
        await #expect(throws: full) {
            try await test.tasks.update(agent(), taskID: task.id, TaskPatch(description: description(String(repeating: "c", count: 11))))
        }
        await #expect(throws: full) {
            try await questions.ask(accountID: account.id, keyID: keys[0].id, Questions.Draft(
                prompt: checked("Go?", .questionPrompt), kind: .confirm, options: [], taskID: nil, expiresIn: 60))
        }
        await #expect(throws: full) {
            try await test.inbox.send(agent(1), to: .keyID(keys[0].id), text: checked(String(repeating: "d", count: 11), .messageText),
                                taskID: nil)
        }
        #expect(try await used == 90 && test.rowCount("tasks") == 1 && test.rowCount("questions") == 0
            && test.rowCount("inbox_items") == 0)
        // Up to the limit exactly is allowed.
        _ = try await test.tasks.create(agent(1), keyID: nil, NewTask(title: title(String(repeating: "b", count: 10))), host: nil)
        #expect(try await used == 100)
    }

    @Test func aFullAccountCanAlwaysShrinkDeleteAndChangeWhatIsNotText() async throws {
        let asked = try await questions.ask(accountID: account.id, keyID: keys[0].id, Questions.Draft(
            prompt: checked("Typed?", .questionPrompt), kind: .text, options: [], taskID: nil, expiresIn: 600))
        let task = try await test.tasks.create(agent(), keyID: nil, NewTask(title: title("Long title"), description: description("0123456789")),
                                         host: nil)
        // The operator lowers the limit below what the account holds.
        test.store.quota = StorageQuota(limit: 10)
        let full = DomainError.storageFull(test.store.quota.fullMessage)
        await #expect(throws: full) { try await questions.answer(accountID: account.id, id: asked.id, "yes") }
        await #expect(throws: full) { try await test.tasks.update(agent(), taskID: task.id, TaskPatch(title: title("Longer title"))) }
        _ = try await test.tasks.update(agent(), taskID: task.id, TaskPatch(status: .done, priority: .high, progress: .some(100)))
        _ = try await test.tasks.update(agent(), taskID: task.id, TaskPatch(title: title("Short"), description: description("")))
        let person = Principal.account(accountID: account.id)
        // The person's change leaves an inbox line, counted but never refused.
        _ = try await test.tasks.update(person, taskID: task.id, TaskPatch(status: .cancelled))
        try await test.tasks.delete(person, taskID: task.id)
        try await questions.cancel(accountID: account.id, keyID: keys[0].id, id: asked.id)
        #expect(try await used == scanned())
    }

    @Test func theCountAgreesWithAScanAfterAnyMixOfWrites() async throws {
        let person = Principal.account(accountID: account.id)
        var random = SplitMix64(seed: 26)
        var tasks: [(Principal, String)] = []
        let words = ["a", "é", "👍🏽", "plain words", "\u{E0100}x", ""]
        func text(_ count: Int) -> String { (0..<count).map { _ in words.randomElement(using: &random)! }.joined() }
        for step in 0..<400 {
            let who = [agent(0), agent(1), person].randomElement(using: &random)!
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                let keyID = who.keyID == nil ? keys[step % 2].id : nil
                let made = try await test.tasks.create(who, keyID: keyID, NewTask(title: title("t" + text(3)), description: description(text(20)),
                                                                            statusNote: checked(text(2), .statusNote)), host: nil)
                tasks.append((who.keyID == nil ? person : who, made.id))
            case 2 where !tasks.isEmpty:
                let (owner, id) = tasks.randomElement(using: &random)!
                _ = try await test.tasks.update(owner, taskID: id, TaskPatch(title: title("u" + text(2)), description: description(text(10)),
                                                                       statusNote: .some(Bool.random(using: &random) ? nil : checked(text(1), .statusNote))))
            case 3 where !tasks.isEmpty:
                let index = Int.random(in: 0..<tasks.count, using: &random)
                try await test.tasks.delete(tasks[index].0, taskID: tasks[index].1)
                tasks.remove(at: index)
            case 4:
                _ = try await test.inbox.send(person, to: .keyID(keys[step % 2].id), text: checked("m" + text(5), .messageText), taskID: nil)
            default:
                let asked = try await questions.ask(accountID: account.id, keyID: keys[0].id, Questions.Draft(
                    prompt: checked("q" + text(4), .questionPrompt), kind: .text, options: [], taskID: nil, expiresIn: 60))
                _ = try await questions.answer(accountID: account.id, id: asked.id, "a" + text(3))
            }
            test.clock.advance(millis: 1)
        }
        let total = try await used
        #expect(try total == scanned() && total > 0)
        #expect(try await used == keysSum())
    }

    @Test func theUpgradeCountsTheTextAFileAlreadyHolds() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("old.db")
        let db = try Database(path: path)
        _ = try Migrator.migrate(db, Array(Schema.migrations.prefix(7)))
        try db.execute("""
            INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_1', x'01', 1), ('acc_2', x'02', 1);
            INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at)
                VALUES ('key_1', 'acc_1', 'agent', x'03', 'mck_abcd', 'wxyz', 1),
                ('key_2', 'acc_1', 'other', x'04', 'mck_efgh', 'wxyz', 1),
                ('key_3', 'acc_2', 'empty', x'05', 'mck_ijkl', 'wxyz', 1);
            INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, progress, status_note,
                source, created_at, updated_at, created_seq, changed_seq)
                VALUES ('tsk_1', 'acc_1', 'key_1', 'Café', 'two words', 'todo', 'low', 1, NULL, 'note', 'agent', 1, 1, 1, 1),
                ('tsk_2', 'acc_1', 'key_2', 'x', '', 'todo', 'low', 1, NULL, NULL, 'agent', 1, 1, 2, 2);
            INSERT INTO questions (id, account_id, key_id, task_id, prompt, kind, options, status, answer, created_at,
                answered_at, expires_at, closed_at)
                VALUES ('qst_1', 'acc_1', 'key_1', NULL, 'Ship?', 'confirm', '["Yes","No"]', 'answered', 'Yes', 1, 2, 99, 2);
            INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at)
                VALUES ('inb_1', 'acc_1', 'key_2', 'answer', 'Yes ✓', 2);
            """)
        db.close()
        let store = Store(path: path)
        defer { store.close() }
        #expect(try store.open())
        let perKey = try store.read { db in
            try db.rows("SELECT id, text_bytes FROM keys ORDER BY id", []) { "\(try $0.text("id"))=\(try $0.int("text_bytes"))" }
        }
        // key_1: "Café" 5, "two words" 9, "note" 4, "Ship?" 5, the options 12, "Yes" 3; key_2: "x" 1, "Yes ✓" 7.
        #expect(perKey == ["key_1=38", "key_2=8", "key_3=0"])
        #expect(try await store.reading { db in try await StorageQuota.used(db, accountID: "acc_1") } == 46)
        #expect(try await store.reading { db in try await StorageQuota.used(db, accountID: "acc_2") } == 0)
    }

    /// Migration 14 carries the keys' counts of a file to its accounts, the text of a deleted
    /// key not purged yet included, and from there the triggers move both.
    @Test func theAccountsCountStartsFromWhatItsKeysCountedBefore() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("twelve.db")
        let db = try Database(path: path)
        _ = try Migrator.migrate(db, Array(Schema.migrations.prefix(12)))
        try db.execute("""
            INSERT INTO accounts (id, token_hash, created_at) VALUES ('acc_1', x'01', 1), ('acc_2', x'02', 1);
            INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at, deleted_at)
                VALUES ('key_1', 'acc_1', 'agent', x'03', 'mck_abcd', 'wxyz', 1, NULL),
                ('key_2', 'acc_1', 'gone', x'04', 'mck_efgh', 'wxyz', 1, 5),
                ('key_3', 'acc_2', 'other', x'05', 'mck_ijkl', 'wxyz', 1, NULL);
            INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, progress, status_note,
                source, created_at, updated_at, created_seq, changed_seq)
                VALUES ('tsk_1', 'acc_1', 'key_1', 'Café', 'two words', 'todo', 'low', 1, NULL, NULL, 'agent', 1, 1, 1, 1),
                ('tsk_2', 'acc_1', 'key_2', 'left', '', 'todo', 'low', 1, NULL, NULL, 'agent', 1, 1, 2, 2),
                ('tsk_3', 'acc_2', 'key_3', 'x', 'y', 'todo', 'low', 1, NULL, NULL, 'agent', 1, 1, 3, 3);
            INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at)
                VALUES ('inb_1', 'acc_1', 'key_1', 'message', 'Yes ✓', 2);
            """)
        db.close()
        let store = Store(path: path)
        defer { store.close() }
        #expect(try store.open())
        func used(_ account: String) async throws -> Int {
            try await store.reading { db in try await StorageQuota.used(db, accountID: account) }
        }
        // acc_1: "Café" 5 + "two words" 9, "Yes ✓" 7, and the deleted key's "left" 4.
        #expect(try await used("acc_1") == 25)
        #expect(try await used("acc_2") == 2)
        try store.write { db in
            try db.execute("UPDATE tasks SET description = '' WHERE id = 'tsk_1'")
            try db.execute("DELETE FROM tasks WHERE id = 'tsk_2'")
        }
        #expect(try await used("acc_1") == 12)
        #expect(try await used("acc_2") == 2)
        // A row that moves to another key and account (no statement of the server does) takes
        // its text along, with its change of size.
        try store.write { db in
            try db.execute("UPDATE tasks SET key_id = 'key_3', account_id = 'acc_2', title = 'Cafés' WHERE id = 'tsk_1'")
        }
        #expect(try await used("acc_1") == 7)
        #expect(try await used("acc_2") == 8)
    }

    @Test func theLimitIsDescribedInTheLargestUnitThatDividesIt() {
        #expect(StorageQuota.describe(StorageQuota.defaultLimit) == "256 MiB")
        #expect(StorageQuota.describe(3 << 30) == "3 GiB")
        #expect(StorageQuota.describe(1536 * 1024) == "1,536 KiB")
        #expect(StorageQuota.describe(1000) == "1,000 bytes")
    }
}
