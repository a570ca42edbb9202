import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `inbox.md`: what adds an item, reading, the cap, `seen_at`, messages.
@Suite struct InboxTests {
    let test: TestStore
    let account: Account
    let keys: [Key]
    let agent: KeyUse
    let person: Principal

    init() async throws {
        test = try TestStore(.memory)
        let (account, _, made) = try await test.account(withKeys: 3)
        self.account = account
        keys = made.map(\.key)
        agent = KeyUse(keyID: keys[0].id, accountID: account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)
        person = .account(accountID: account.id)
    }

    func texts() async throws -> [String] {
        try await test.inbox.recent(accountID: account.id, keyID: agent.keyID).items.reversed().map { "\($0.kind.rawValue): \($0.text)" }
    }

    @Test func thePersonsChangesAddItemsAndTheAgentsOwnAddNone() async throws {
        let task = try await test.tasks.create(person, keyID: agent.keyID, NewTask(title: checked("Fix the login loop", .taskTitle)), host: nil)
        _ = try await test.tasks.update(person, taskID: task.id, TaskPatch(
            title: checked("Fix the loop", .taskTitle), description: checked("new", .taskDescription), status: .cancelled,
            priority: .urgent))
        _ = try await test.tasks.update(person, taskID: task.id, TaskPatch(notify: false, progress: .some(5),
                                                                      statusNote: .some(checked("note", .statusNote))))
        _ = try await test.tasks.update(.key(agent), taskID: task.id, TaskPatch(title: checked("Mine", .taskTitle)))
        _ = try await test.tasks.create(.key(agent), keyID: nil, NewTask(title: checked("own", .taskTitle)), host: nil)
        _ = try await test.tasks.update(person, taskID: task.id, TaskPatch(status: .inProgress))
        try await test.tasks.delete(person, taskID: task.id)
        #expect(try await texts() == [
            "task_assigned: Fix the login loop",
            #"task_changed: Status changed from todo to cancelled. Priority changed from medium to urgent. Title changed to "Fix the loop". Description changed."#,
            "task_changed: Status changed from cancelled to in_progress.",
            "task_deleted: Mine",
        ])
        let items = try await test.inbox.recent(accountID: account.id, keyID: agent.keyID).items
        #expect(items.allSatisfy { $0.taskID == task.id && $0.from == .person && $0.readAt == nil })
    }

    @Test func readGivesUnreadOldestFirstAndMarksThemRead() async throws {
        for index in 0..<3 {
            _ = try await test.inbox.send(person, to: .keyID(agent.keyID), text: checked("m\(index)", .messageText), taskID: nil)
            test.clock.advance(millis: 1)
        }
        let peek = try await test.inbox.read(agent, limit: 2, markRead: false)
        #expect(peek.items.map(\.text) == ["m0", "m1"] && peek.unread == 3 && peek.items.allSatisfy { $0.readAt == nil })
        let before = test.changes.count
        let first = try await test.inbox.read(agent, limit: 2, markRead: true)
        #expect(first.items.map(\.text) == ["m0", "m1"] && first.unread == 1)
        #expect(first.items.allSatisfy { $0.readAt == test.clock.wallMillis })
        #expect(test.changes[before...] == [Change(accountID: account.id, event: .inboxUpdated(keyID: agent.keyID, unread: 1), actor: .key(agent.keyID))])
        #expect(try await test.inbox.read(agent, limit: 20, markRead: true).items.map(\.text) == ["m2"])
        #expect(try await test.inbox.read(agent, limit: 20, markRead: true).items.isEmpty)
        let recent = try await test.inbox.recent(accountID: account.id, keyID: agent.keyID)
        #expect(recent.items.map(\.text) == ["m2", "m1", "m0"] && recent.unread == 0)
    }

    @Test func theTwoHundredAndFirstUnreadItemPushesOutTheOldest() async throws {
        for index in 0..<Inbox.maxUnreadPerKey + 1 {
            _ = try await test.store.writing(hub: test.hub) { db, turn in
                try await test.inbox.add(db, turn, accountID: account.id, keyID: agent.keyID, kind: .message, from: .person,
                                   taskID: nil, text: "m\(index)", actor: .account)
            }
            test.clock.advance(millis: 1)
        }
        let read = try await test.inbox.read(agent, limit: 1, markRead: false)
        #expect(read.items.map(\.text) == ["m1"] && read.unread == Inbox.maxUnreadPerKey)
    }

    @Test func anItemGivesItsTaskASeenAtOnceWithoutMovingIt() async throws {
        let task = try await test.tasks.create(person, keyID: agent.keyID, NewTask(title: checked("t", .taskTitle)), host: nil)
        test.clock.advance(millis: 500)
        let before = test.changes.count
        _ = try await test.inbox.read(agent, limit: 20, markRead: false)
        var seen = task
        seen.seenAt = task.createdAt + 500
        #expect(try await test.tasks.get(person, taskID: task.id) == seen)
        #expect(test.changes[before...] == [Change(accountID: account.id, event: .taskUpdated(seen), actor: .key(agent.keyID))])
        test.clock.advance(millis: 500)
        _ = try await test.inbox.read(agent, limit: 20, markRead: true)
        #expect(try await test.tasks.get(person, taskID: task.id).seenAt == seen.seenAt)
    }

    @Test func anAgentSendsToAnotherKeyByIDOrExactLabel() async throws {
        let me = Principal.key(agent)
        let byID = try await test.inbox.send(me, to: .to(keys[1].id), text: checked("  ready\n  now \n", .messageText), taskID: nil)
        #expect(byID.keyID == keys[1].id && byID.text == "ready\n  now" && byID.from == .agent(keyID: agent.keyID, label: "key 1"))
        let byLabel = try await test.inbox.send(me, to: .to("key 3"), text: checked("hi", .messageText), taskID: nil)
        #expect(byLabel.keyID == keys[2].id && byLabel.kind == .message)
        _ = try await test.keys.update(accountID: account.id, keyID: keys[2].id, label: checked("key 2"))
        let notFound = DomainError.notFound("Key not found.")
        // Two keys have "key 2" now: the answer says so, and what to send instead.
        await #expect(throws: DomainError.notFound("Key not found: more than one key has this label. Send to the key ID instead.")) {
            try await test.inbox.send(me, to: .to("key 2"), text: checked("x", .messageText), taskID: nil)
        }
        for name in ["key 1", agent.keyID, "nobody", "KEY 3"] {
            await #expect(throws: notFound) { try await test.inbox.send(me, to: .to(name), text: checked("x", .messageText), taskID: nil) }
        }
        let stranger = try await test.account(withKeys: 1).keys[0].key
        await #expect(throws: notFound) { try await test.inbox.send(me, to: .to(stranger.id), text: checked("x", .messageText), taskID: nil) }
        await #expect(throws: notFound) { try await test.inbox.send(person, to: .keyID(stranger.id), text: checked("x", .messageText), taskID: nil) }
    }

    @Test func aMessageMayNameOnlyATaskTheSenderCanRead() async throws {
        let other = test.agent(keys[1])
        let theirs = try await test.tasks.create(other, keyID: nil, NewTask(title: checked("theirs", .taskTitle)), host: nil)
        await #expect(throws: DomainError.notFound("Task not found.")) {
            try await test.inbox.send(.key(agent), to: .to(keys[1].id), text: checked("x", .messageText), taskID: theirs.id)
        }
        let item = try await test.inbox.send(person, to: .keyID(agent.keyID), text: checked("look", .messageText), taskID: theirs.id)
        #expect(item.taskID == theirs.id)
        // The receiver does not see another key's task: its seen_at stays.
        _ = try await test.inbox.read(agent, limit: 20, markRead: true)
        #expect(try await test.tasks.get(person, taskID: theirs.id).seenAt == theirs.seenAt)
    }

    @Test func readItemsGoAfterADayAndUnreadOnesAfterAWeek() async throws {
        _ = try await test.inbox.send(person, to: .keyID(agent.keyID), text: checked("read", .messageText), taskID: nil)
        _ = try await test.inbox.read(agent, limit: 20, markRead: true)
        _ = try await test.inbox.send(person, to: .keyID(agent.keyID), text: checked("unread", .messageText), taskID: nil)
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        #expect(try await test.inbox.read(agent, limit: 20, markRead: false).items.map(\.text) == ["unread"])
        #expect(try await test.inbox.recent(accountID: account.id, keyID: agent.keyID).items.map(\.text) == ["unread"])
        test.clock.advance(by: .seconds(6 * 24 * 3600))
        #expect(try await test.inbox.read(agent, limit: 20, markRead: false).items.isEmpty)
    }

    @Test func recentIsForTheAccountsOwnKeys() async throws {
        let stranger = try await test.account(withKeys: 1).keys[0].key
        await #expect(throws: DomainError.notFound("Key not found.")) { try await test.inbox.recent(accountID: account.id, keyID: stranger.id) }
    }
}
