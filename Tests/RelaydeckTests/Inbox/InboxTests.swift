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

    init() throws {
        test = try TestStore(.memory)
        let (account, _, made) = try test.account(withKeys: 3)
        self.account = account
        keys = made.map(\.key)
        agent = KeyUse(keyID: keys[0].id, accountID: account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)
        person = .account(accountID: account.id)
    }

    func texts() throws -> [String] {
        try test.inbox.recent(accountID: account.id, keyID: agent.keyID).items.reversed().map { "\($0.kind.rawValue): \($0.text)" }
    }

    @Test func thePersonsChangesAddItemsAndTheAgentsOwnAddNone() throws {
        let task = try test.tasks.create(person, keyID: agent.keyID, NewTask(title: checked("Fix the login loop", .taskTitle)), host: nil)
        _ = try test.tasks.update(person, taskID: task.id, TaskPatch(
            title: checked("Fix the loop", .taskTitle), description: checked("new", .taskDescription), status: .cancelled,
            priority: .urgent))
        _ = try test.tasks.update(person, taskID: task.id, TaskPatch(notify: false, progress: .some(5),
                                                                      statusNote: .some(checked("note", .statusNote))))
        _ = try test.tasks.update(.key(agent), taskID: task.id, TaskPatch(title: checked("Mine", .taskTitle)))
        _ = try test.tasks.create(.key(agent), keyID: nil, NewTask(title: checked("own", .taskTitle)), host: nil)
        _ = try test.tasks.update(person, taskID: task.id, TaskPatch(status: .inProgress))
        try test.tasks.delete(person, taskID: task.id)
        #expect(try texts() == [
            "task_assigned: Fix the login loop",
            #"task_changed: Status changed from todo to cancelled. Priority changed from medium to urgent. Title changed to "Fix the loop". Description changed."#,
            "task_changed: Status changed from cancelled to in_progress.",
            "task_deleted: Mine",
        ])
        let items = try test.inbox.recent(accountID: account.id, keyID: agent.keyID).items
        #expect(items.allSatisfy { $0.taskID == task.id && $0.from == .person && $0.readAt == nil })
    }

    @Test func readGivesUnreadOldestFirstAndMarksThemRead() throws {
        for index in 0..<3 {
            _ = try test.inbox.send(person, to: .keyID(agent.keyID), text: checked("m\(index)", .messageText), taskID: nil)
            test.clock.advance(millis: 1)
        }
        let peek = try test.inbox.read(agent, limit: 2, markRead: false)
        #expect(peek.items.map(\.text) == ["m0", "m1"] && peek.unread == 3 && peek.items.allSatisfy { $0.readAt == nil })
        let before = test.changes.count
        let first = try test.inbox.read(agent, limit: 2, markRead: true)
        #expect(first.items.map(\.text) == ["m0", "m1"] && first.unread == 1)
        #expect(first.items.allSatisfy { $0.readAt == test.clock.wallMillis })
        #expect(test.changes[before...] == [Change(accountID: account.id, event: .inboxUpdated(keyID: agent.keyID, unread: 1), actor: .key(agent.keyID))])
        #expect(try test.inbox.read(agent, limit: 20, markRead: true).items.map(\.text) == ["m2"])
        #expect(try test.inbox.read(agent, limit: 20, markRead: true).items.isEmpty)
        let recent = try test.inbox.recent(accountID: account.id, keyID: agent.keyID)
        #expect(recent.items.map(\.text) == ["m2", "m1", "m0"] && recent.unread == 0)
    }

    @Test func theTwoHundredAndFirstUnreadItemPushesOutTheOldest() throws {
        for index in 0..<Inbox.maxUnreadPerKey + 1 {
            _ = try test.store.write(hub: test.hub) { db, turn in
                try test.inbox.add(db, turn, accountID: account.id, keyID: agent.keyID, kind: .message, from: .person,
                                   taskID: nil, text: "m\(index)", actor: .account)
            }
            test.clock.advance(millis: 1)
        }
        let read = try test.inbox.read(agent, limit: 1, markRead: false)
        #expect(read.items.map(\.text) == ["m1"] && read.unread == Inbox.maxUnreadPerKey)
    }

    @Test func anItemGivesItsTaskASeenAtOnceWithoutMovingIt() throws {
        let task = try test.tasks.create(person, keyID: agent.keyID, NewTask(title: checked("t", .taskTitle)), host: nil)
        test.clock.advance(millis: 500)
        let before = test.changes.count
        _ = try test.inbox.read(agent, limit: 20, markRead: false)
        var seen = task
        seen.seenAt = task.createdAt + 500
        #expect(try test.tasks.get(person, taskID: task.id) == seen)
        #expect(test.changes[before...] == [Change(accountID: account.id, event: .taskUpdated(seen), actor: .key(agent.keyID))])
        test.clock.advance(millis: 500)
        _ = try test.inbox.read(agent, limit: 20, markRead: true)
        #expect(try test.tasks.get(person, taskID: task.id).seenAt == seen.seenAt)
    }

    @Test func anAgentSendsToAnotherKeyByIDOrExactLabel() throws {
        let me = Principal.key(agent)
        let byID = try test.inbox.send(me, to: .to(keys[1].id), text: checked("  ready\n  now \n", .messageText), taskID: nil)
        #expect(byID.keyID == keys[1].id && byID.text == "ready\n  now" && byID.from == .agent(keyID: agent.keyID, label: "key 1"))
        let byLabel = try test.inbox.send(me, to: .to("key 3"), text: checked("hi", .messageText), taskID: nil)
        #expect(byLabel.keyID == keys[2].id && byLabel.kind == .message)
        _ = try test.keys.update(accountID: account.id, keyID: keys[2].id, label: checked("key 2"))
        let notFound = DomainError.notFound("Key not found.")
        // Two keys have "key 2" now: the answer says so, and what to send instead.
        #expect(throws: DomainError.notFound("Key not found: more than one key has this label. Send to the key ID instead.")) {
            try test.inbox.send(me, to: .to("key 2"), text: checked("x", .messageText), taskID: nil)
        }
        for name in ["key 1", agent.keyID, "nobody", "KEY 3"] {
            #expect(throws: notFound) { try test.inbox.send(me, to: .to(name), text: checked("x", .messageText), taskID: nil) }
        }
        let stranger = try test.account(withKeys: 1).keys[0].key
        #expect(throws: notFound) { try test.inbox.send(me, to: .to(stranger.id), text: checked("x", .messageText), taskID: nil) }
        #expect(throws: notFound) { try test.inbox.send(person, to: .keyID(stranger.id), text: checked("x", .messageText), taskID: nil) }
    }

    @Test func aMessageMayNameOnlyATaskTheSenderCanRead() throws {
        let other = test.agent(keys[1])
        let theirs = try test.tasks.create(other, keyID: nil, NewTask(title: checked("theirs", .taskTitle)), host: nil)
        #expect(throws: DomainError.notFound("Task not found.")) {
            try test.inbox.send(.key(agent), to: .to(keys[1].id), text: checked("x", .messageText), taskID: theirs.id)
        }
        let item = try test.inbox.send(person, to: .keyID(agent.keyID), text: checked("look", .messageText), taskID: theirs.id)
        #expect(item.taskID == theirs.id)
        // The receiver does not see another key's task: its seen_at stays.
        _ = try test.inbox.read(agent, limit: 20, markRead: true)
        #expect(try test.tasks.get(person, taskID: theirs.id).seenAt == theirs.seenAt)
    }

    @Test func readItemsGoAfterADayAndUnreadOnesAfterAWeek() throws {
        _ = try test.inbox.send(person, to: .keyID(agent.keyID), text: checked("read", .messageText), taskID: nil)
        _ = try test.inbox.read(agent, limit: 20, markRead: true)
        _ = try test.inbox.send(person, to: .keyID(agent.keyID), text: checked("unread", .messageText), taskID: nil)
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        #expect(try test.inbox.read(agent, limit: 20, markRead: false).items.map(\.text) == ["unread"])
        #expect(try test.inbox.recent(accountID: account.id, keyID: agent.keyID).items.map(\.text) == ["unread"])
        test.clock.advance(by: .seconds(6 * 24 * 3600))
        #expect(try test.inbox.read(agent, limit: 20, markRead: false).items.isEmpty)
    }

    @Test func recentIsForTheAccountsOwnKeys() throws {
        let stranger = try test.account(withKeys: 1).keys[0].key
        #expect(throws: DomainError.notFound("Key not found.")) { try test.inbox.recent(accountID: account.id, keyID: stranger.id) }
    }
}
