@testable import Relaydeck
import SQLite
import Testing

@Suite struct PurgerTests {
    @Test(arguments: StoreKind.allCases)
    func removesDeletedAccountsAndTheirKeysInBatches(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        var accounts: [(account: Account, token: Secret, keys: [(key: Key, secret: Secret)])] = []
        for _ in 0..<30 {
            accounts.append(try await test.account(withKeys: 20))
        }
        let doomed = accounts.prefix(25)
        let kept = accounts.suffix(5)
        for entry in doomed {
            try await test.accounts.delete(entry.account.id)
        }
        let purger = Purger(store: test.store)
        #expect(try await purger.hasWork())

        // 500 keys: 200, 200, then 100 with the 25 accounts they freed; a last step finds
        // nothing.
        var steps: [Bool] = []
        while try await purger.step() {
            steps.append(true)
            if steps.count > 10 { break }
        }
        steps.append(false)
        #expect(steps == [true, true, true, false])

        #expect(try await purger.hasWork() == false)
        #expect(try test.rowCount("accounts") == 5)
        #expect(try test.rowCount("keys") == 100)
        for entry in doomed {
            #expect(try test.rowCount("accounts", where: "id = '\(entry.account.id)'") == 0)
            #expect(try test.rowCount("keys", where: "account_id = '\(entry.account.id)'") == 0)
        }
        for entry in kept {
            #expect(try await test.accounts.get(entry.account.id) == entry.account)
            #expect(try await test.keys.list(accountID: entry.account.id).count == 20)
            #expect(try await test.authenticator.authenticate(Substring(entry.token.text)) == .account(accountID: entry.account.id))
            #expect(try await test.authenticator.authenticate(Substring(entry.keys[19].secret.text))?.accountID == entry.account.id)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func accountsWithoutKeysGoInBatchesToo(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        for _ in 0..<250 {
            let (account, _) = try await test.accounts.create()
            try await test.accounts.delete(account.id)
        }
        let live = try await test.accounts.create().account
        let purger = Purger(store: test.store)
        #expect(try await purger.step() == true)
        #expect(try test.rowCount("accounts") == 51)
        #expect(try await purger.step() == false)
        #expect(try test.rowCount("accounts") == 1)
        #expect(try await test.accounts.get(live.id) == live)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeletedKeyGoesAndItsLiveAccountStays(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 3)
        let purger = Purger(store: test.store)
        #expect(try await purger.hasWork() == false)
        #expect(try await purger.step() == false)

        try await test.keys.delete(accountID: account.id, keyID: keys[1].key.id)
        #expect(try await purger.hasWork())
        #expect(try test.rowCount("keys") == 3)
        #expect(try await purger.step() == true)
        #expect(try await purger.step() == false)
        #expect(try await purger.hasWork() == false)
        #expect(try test.rowCount("keys") == 2)
        #expect(try test.rowCount("keys", where: "id = '\(keys[1].key.id)'") == 0)
        #expect(try await test.keys.list(accountID: account.id).map(\.id) == [keys[2].key.id, keys[0].key.id])
    }

    @Test(arguments: StoreKind.allCases)
    func nothingToDoOnAnEmptyStore(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let purger = Purger(store: test.store)
        #expect(try await purger.hasWork() == false)
        #expect(try await purger.step() == false)
    }
}

@Suite struct PurgerOwnedRowsTests {
    /// A deleted key's tasks, questions, inbox and activity go before the key itself, and a
    /// deleted account's devices and registrations before the account; nothing of a live
    /// key or account is touched.
    @Test(arguments: StoreKind.allCases)
    func whatADeletedKeyOrAccountOwnedGoesFirst(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (doomed, _, doomedKeys) = try await test.account(withKeys: 2)
        let (kept, _, keptKeys) = try await test.account(withKeys: 1)
        for (account, key) in [(doomed.id, doomedKeys[0].key.id), (doomed.id, doomedKeys[1].key.id), (kept.id, keptKeys[0].key.id)] {
            try test.store.write { db in
                for n in 0..<150 {
                    try db.statement(Self.insertTask).run(.text("tsk_\(key)_\(n)"), .text(account), .text(key))
                    try db.statement(Self.insertActivity).run(.text("act_\(key)_\(n)"), .text(key))
                }
                try db.statement(Self.insertQuestion).run(.text("qst_\(key)"), .text(account), .text(key))
                try db.statement(Self.insertInbox).run(.text("inb_\(key)"), .text(account), .text(key))
                try db.statement(Self.insertDevice).run(.text("dev_\(key)"), .text(account))
                try db.statement(Self.insertLiveActivity).run(.text("tsk_\(key)_0"), .text("dev_\(key)"), .text(account))
            }
        }
        try await test.keys.delete(accountID: doomed.id, keyID: doomedKeys[0].key.id)
        try await test.accounts.delete(doomed.id)
        let purger = Purger(store: test.store)
        var steps = 0
        while try await purger.step() { steps += 1 }
        #expect(steps >= 2)
        for table in ["tasks", "questions", "inbox_items", "devices", "live_activities", "keys"] {
            #expect(try test.rowCount(table, where: "account_id = '\(doomed.id)'") == 0, "\(table)")
        }
        let doomedKeyIDs = doomedKeys.map { "'\($0.key.id)'" }.joined(separator: ", ")
        #expect(try test.rowCount("activity", where: "key_id IN (\(doomedKeyIDs))") == 0)
        #expect(try test.rowCount("accounts", where: "id = '\(doomed.id)'") == 0)
        #expect(try test.rowCount("tasks") == 150)
        #expect(try test.rowCount("activity") == 150)
        #expect(try test.rowCount("questions") == 1)
        #expect(try test.rowCount("inbox_items") == 1)
        #expect(try test.rowCount("devices") == 1)
        #expect(try test.rowCount("live_activities") == 1)
        #expect(try await purger.hasWork() == false)
    }

    static let insertTask = """
        INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, created_at, \
        updated_at, created_seq, changed_seq) VALUES (?, ?, ?, 't', '', 'todo', 'low', 1, 'agent', 0, 0, 0, 0)
        """
    static let insertActivity = """
        INSERT INTO activity (id, key_id, at, surface, action, status, duration_ms) VALUES (?, ?, 0, 'rest', 'GET /v1/tasks', 'ok', 1)
        """
    static let insertQuestion = """
        INSERT INTO questions (id, account_id, key_id, prompt, kind, options, status, created_at, expires_at) \
        VALUES (?, ?, ?, 'p', 'confirm', '["Yes","No"]', 'pending', 0, 1)
        """
    static let insertInbox = """
        INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at) VALUES (?, ?, ?, 'message', 'hi', 0)
        """
    static let insertDevice = """
        INSERT INTO devices (id, account_id, platform, model, os_version, app_version, apns_environment, updated_at) \
        VALUES (?, ?, 'ios', 'iPhone', '27.0', '1.0', 'production', 0)
        """
    static let insertLiveActivity = """
        INSERT INTO live_activities (task_id, device_id, account_id, push_token, updated_at) VALUES (?, ?, ?, 'ab', 0)
        """
}
