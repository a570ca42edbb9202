import Clock
import EventLoop
import PostgresStore
@testable import Relaydeck
import Testing

/// `Inbox` on a real PostgreSQL database (`AccountsOnPostgresTests.Services`: the filled
/// store's copy), with the behaviour its SQLite tests check: messages sent by key ID or exact
/// label and the refusals, unread items read oldest first and marked read, the task an item
/// names seen, the 200 unread items a key keeps, pruning by age, the storage quota, and
/// `inbox.updated` published after the COMMIT with the unread count, never after a rollback.
@Suite struct InboxOnPostgresTests {
    typealias Services = AccountsOnPostgresTests.Services

    /// An account of three keys (`key 1`, `key 2`, `key 3`) and the first key's use.
    final class Keyed {
        let domain: Services
        let account: Account
        let keys: [Key]
        let agent: KeyUse

        init() throws {
            domain = try Services()
            let made = try domain.account(withKeys: 3)
            account = made.account
            keys = made.keys.map(\.key)
            agent = KeyUse(keyID: keys[0].id, accountID: account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)
        }

        var person: Principal { .account(accountID: account.id) }

        func send(_ from: Principal, to recipient: Inbox.Recipient, _ text: String, taskID: String? = nil) throws -> InboxItem {
            try domain.run {
                try await self.domain.inbox.send(from, to: recipient, text: Services.checked(text, .messageText), taskID: taskID)
            }
        }

        func read(limit: Int = 20, markRead: Bool) throws -> (items: [InboxItem], unread: Int) {
            try domain.run { try await self.domain.inbox.read(self.agent, limit: limit, markRead: markRead) }
        }

        func recent() throws -> [String] {
            try domain.run { try await self.domain.inbox.recent(accountID: self.account.id, keyID: self.agent.keyID) }.items.map(\.text)
        }
    }

    @Test func anAgentSendsByKeyIDOrExactLabelAndTheRefusalsSayWhyOnPostgreSQL() throws {
        let test = try Keyed()
        let me = Principal.key(test.agent)
        let before = test.domain.published.count
        let byID = try test.send(me, to: .to(test.keys[1].id), "  ready\n  now \n")
        #expect(byID.keyID == test.keys[1].id && byID.text == "ready\n  now" && byID.from == .agent(keyID: test.agent.keyID, label: "key 1"))
        #expect(test.domain.published(since: before) == [
            Change(accountID: test.account.id, event: .inboxUpdated(keyID: test.keys[1].id, unread: 1), actor: .key(test.agent.keyID)),
        ])
        let byLabel = try test.send(me, to: .to("key 3"), "hi")
        #expect(byLabel.keyID == test.keys[2].id && byLabel.kind == .message)
        _ = try test.domain.run {
            try await test.domain.keys.update(accountID: test.account.id, keyID: test.keys[2].id, label: Services.checked("key 2"))
        }
        #expect(throws: DomainError.notFound("Key not found: more than one key has this label. Send to the key ID instead.")) {
            _ = try test.send(me, to: .to("key 2"), "x")
        }
        for name in ["key 1", test.agent.keyID, "nobody", "KEY 3", "Claude Code", "key_1"] {
            #expect(throws: DomainError.notFound("Key not found."), "\(name)") { _ = try test.send(me, to: .to(name), "x") }
        }
        #expect(throws: DomainError.notFound("Key not found.")) { _ = try test.send(test.person, to: .keyID("key_1"), "x") }
    }

    @Test func aMessageMayNameOnlyATaskTheSenderCanReadOnPostgreSQL() throws {
        let test = try Keyed()
        let theirs = try test.domain.run {
            try await test.domain.tasks.create(.account(accountID: test.account.id), keyID: test.keys[1].id,
                                               NewTask(title: Services.checked("theirs", .taskTitle)), host: nil)
        }
        #expect(throws: DomainError.notFound("Task not found.")) {
            _ = try test.send(.key(test.agent), to: .to(test.keys[1].id), "x", taskID: theirs.id)
        }
        let item = try test.send(test.person, to: .keyID(test.agent.keyID), "look", taskID: theirs.id)
        #expect(item.taskID == theirs.id)
    }

    @Test func readGivesUnreadOldestFirstAndMarksThemReadOnPostgreSQL() throws {
        let test = try Keyed()
        let domain = test.domain
        // Two in one millisecond: read in the order sent.
        for index in 0..<3 {
            _ = try test.send(test.person, to: .keyID(test.agent.keyID), "m\(index)")
            if index == 0 { domain.clock.advance(millis: 1) }
        }
        let peek = try test.read(limit: 2, markRead: false)
        #expect(peek.items.map(\.text) == ["m0", "m1"] && peek.unread == 3 && peek.items.allSatisfy { $0.readAt == nil })
        domain.clock.advance(millis: 500)
        let before = domain.published.count
        let first = try test.read(limit: 2, markRead: true)
        #expect(first.items.map(\.text) == ["m0", "m1"] && first.unread == 1)
        #expect(first.items.allSatisfy { $0.readAt == 1_760_000_000_501 })
        #expect(domain.published(since: before)
            == [Change(accountID: test.account.id, event: .inboxUpdated(keyID: test.agent.keyID, unread: 1), actor: .key(test.agent.keyID))])
        #expect(try test.read(markRead: true).items.map(\.text) == ["m2"])
        #expect(try test.read(markRead: true).items.isEmpty)
        #expect(try domain.run { try await domain.inbox.unread(keyID: test.agent.keyID) } == 0)
        #expect(try test.recent() == ["m2", "m1", "m0"])
        #expect(throws: DomainError.notFound("Key not found.")) {
            try domain.run { try await domain.inbox.recent(accountID: test.account.id, keyID: "key_1") }
        }
    }

    /// Reads that mark read, at once on the pool's connections: one gets the item, the others
    /// find it read. Without the key's lock each read it before any marked it.
    @Test func ofThreeReadsThatMarkReadAtOnceOneGetsTheItemOnPostgreSQL() throws {
        let test = try Keyed()
        _ = try test.send(test.person, to: .keyID(test.agent.keyID), "only one")
        var answers: [[String]] = []
        for _ in 0..<3 {
            test.domain.db.driver.loop.startTask {
                let read = try? await test.domain.inbox.read(test.agent, limit: 20, markRead: true)
                answers.append(read?.items.map(\.text) ?? ["failed"])
            }
        }
        test.domain.db.driver.loop.run(until: { answers.count == 3 }, within: .seconds(30))
        #expect(answers.sorted { $0.count > $1.count } == [["only one"], [], []])
    }

    @Test func anItemGivesItsTaskASeenAtOnceOnPostgreSQL() throws {
        let test = try Keyed()
        let domain = test.domain
        // The person's task for the key leaves a `task_assigned` item naming it.
        let task = try domain.run {
            try await domain.tasks.create(test.person, keyID: test.agent.keyID, NewTask(title: Services.checked("t", .taskTitle)), host: nil)
        }
        domain.clock.advance(millis: 100)
        let before = domain.published.count
        let peek = try test.read(markRead: false)
        #expect(peek.items.map(\.text) == ["t"])
        let seen = try domain.run { try await domain.tasks.get(test.person, taskID: task.id) }
        #expect(seen.seenAt == 1_760_000_000_100)
        #expect(domain.published(since: before)
            == [Change(accountID: test.account.id, event: .taskUpdated(seen), actor: .key(test.agent.keyID))])
        domain.clock.advance(millis: 500)
        _ = try test.read(markRead: true)
        let after = try domain.run { try await domain.tasks.get(test.person, taskID: task.id) }
        #expect(after.seenAt == seen.seenAt)
    }

    @Test func theTwoHundredAndFirstUnreadItemPushesOutTheOldestOnPostgreSQL() throws {
        let test = try Keyed()
        let domain = test.domain
        for index in 0..<Inbox.maxUnreadPerKey + 1 {
            _ = try domain.run {
                try await domain.db.store.writing(hub: domain.hub) { db, turn in
                    try await domain.inbox.add(db, turn, accountID: test.account.id, keyID: test.agent.keyID, kind: .message,
                                               from: .person, taskID: nil, text: "m\(index)", actor: .account)
                }
            }
        }
        let read = try test.read(limit: 1, markRead: false)
        #expect(read.items.map(\.text) == ["m1"] && read.unread == Inbox.maxUnreadPerKey)
        #expect(test.domain.published.last
            == Change(accountID: test.account.id, event: .inboxUpdated(keyID: test.agent.keyID, unread: 200), actor: .account))
    }

    @Test func readItemsGoAfterADayAndUnreadOnesAfterAWeekOnPostgreSQL() throws {
        let test = try Keyed()
        _ = try test.send(test.person, to: .keyID(test.agent.keyID), "read")
        _ = try test.read(markRead: true)
        _ = try test.send(test.person, to: .keyID(test.agent.keyID), "unread")
        test.domain.clock.advance(by: .seconds(24 * 3600 + 1))
        #expect(try test.read(markRead: false).items.map(\.text) == ["unread"])
        #expect(try test.recent() == ["unread"])
        test.domain.clock.advance(by: .seconds(6 * 24 * 3600))
        #expect(try test.read(markRead: false).items.isEmpty)
        #expect(try test.domain.count("SELECT count(*) AS n FROM inbox_items WHERE key_id = '\(test.agent.keyID)'") == 0)
    }

    @Test func aMessagePastTheStorageQuotaIsRefusedAndNothingIsKeptOnPostgreSQL() throws {
        let test = try Keyed()
        let used = try test.domain.run { try await test.domain.db.store.reading { try await StorageQuota.used($0, accountID: test.account.id) } }
        test.domain.db.store.quota = StorageQuota(limit: used + 5)
        let before = test.domain.published.count
        #expect(throws: DomainError.storageFull(test.domain.db.store.quota.fullMessage)) {
            _ = try test.send(test.person, to: .keyID(test.agent.keyID), "123456")
        }
        #expect(test.domain.published.count == before)
        #expect(try test.domain.run { try await test.domain.inbox.unread(keyID: test.agent.keyID) } == 0)
        _ = try test.send(test.person, to: .keyID(test.agent.keyID), "12345")
        #expect(try test.domain.run { try await test.domain.db.store.reading { try await StorageQuota.used($0, accountID: test.account.id) } }
            == used + 5)
    }

    @Test func anItemIsPublishedOnlyAfterItsWriteCommitsAndNeverAfterARollbackOnPostgreSQL() throws {
        let test = try Keyed()
        let domain = test.domain
        struct Boom: Error {}
        let before = domain.published.count
        var seenInside: [Int] = []
        func add(_ text: String, thenThrow: Bool) async throws {
            try await domain.db.store.writing(hub: domain.hub) { db, turn in
                try await domain.inbox.add(db, turn, accountID: test.account.id, keyID: test.agent.keyID, kind: .message,
                                           from: .person, taskID: nil, text: text, actor: .account)
                seenInside.append(domain.published.count - before)
                if thenThrow { throw Boom() }
            }
        }
        #expect(throws: Boom.self) { try domain.run { try await add("undone", thenThrow: true) } }
        #expect(domain.published.count == before)
        #expect(try test.recent().isEmpty)
        try domain.run { try await add("kept", thenThrow: false) }
        #expect(seenInside == [0, 0])
        #expect(domain.published(since: before)
            == [Change(accountID: test.account.id, event: .inboxUpdated(keyID: test.agent.keyID, unread: 1), actor: .account)])
        #expect(try test.recent() == ["kept"])
    }
}
