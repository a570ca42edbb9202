import Clock
@testable import Relaydeck
import Testing

/// `inbox.md#task-field`: `Tasks.markSeen` for the tasks an MCP tool result gives the agent.
@Suite struct TaskSeenTests {
    let test: TestStore
    let account: Account
    let key: Key
    let use: KeyUse

    init() throws {
        test = try TestStore(.memory)
        let (account, _, keys) = try test.account(withKeys: 1)
        self.account = account
        key = keys[0].key
        use = KeyUse(keyID: key.id, accountID: account.id, lastUsedAt: nil, lastHost: nil)
    }

    @Test func theFirstTimeCountsAndUpdatedAtStays() throws {
        let person = Principal.account(accountID: account.id)
        let task = try test.tasks.create(person, keyID: key.id, NewTask(title: checked("From the app", .taskTitle)), host: nil)
        #expect(task.seenAt == nil)
        test.clock.advance(millis: 2_000)
        let before = test.changes.count
        let seen = try test.tasks.markSeen(use, [task])
        #expect(seen[0].seenAt == task.createdAt + 2_000 && seen[0].updatedAt == task.updatedAt)
        #expect(test.changes.count == before + 1)
        if case .taskUpdated(let updated) = test.changes.last?.event { #expect(updated.seenAt == seen[0].seenAt) }
        test.clock.advance(millis: 2_000)
        #expect(try test.tasks.markSeen(use, seen)[0].seenAt == seen[0].seenAt)
        #expect(try test.tasks.get(person, taskID: task.id).seenAt == seen[0].seenAt)
        #expect(test.changes.count == before + 1)
    }
}
