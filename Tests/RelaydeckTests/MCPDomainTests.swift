import Clock
@testable import Relaydeck
import Testing

/// The two services the MCP endpoint added: `Tasks.markSeen` for the tasks a tool result gives
/// the agent (`inbox.md#task-field`), and `Keys.recordClient` for the key's `last_client`
/// (`rest-api.md#key`).
@Suite struct MCPDomainTests {
    let test: TestStore
    let account: Account
    let key: Key
    let use: KeyUse

    init() async throws {
        test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        self.account = account
        key = keys[0].key
        use = KeyUse(keyID: key.id, accountID: account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)
    }

    @Test func theFirstTimeCountsAndUpdatedAtStays() async throws {
        let person = Principal.account(accountID: account.id)
        let task = try await test.tasks.create(person, keyID: key.id, NewTask(title: checked("From the app", .taskTitle)), host: nil)
        #expect(task.seenAt == nil)
        test.clock.advance(millis: 2_000)
        let before = test.changes.count
        let seen = try await test.tasks.markSeen(use, [task])
        #expect(seen[0].seenAt == task.createdAt + 2_000 && seen[0].updatedAt == task.updatedAt)
        #expect(test.changes.count == before + 1)
        if case .taskUpdated(let updated) = test.changes.last?.event { #expect(updated.seenAt == seen[0].seenAt) }
        test.clock.advance(millis: 2_000)
        #expect(try await test.tasks.markSeen(use, seen)[0].seenAt == seen[0].seenAt)
        #expect(try await test.tasks.get(person, taskID: task.id).seenAt == seen[0].seenAt)
        #expect(test.changes.count == before + 1)
    }

    @Test func theLastClientChangesOnlyWhenItDiffers() async throws {
        let before = test.changes.count
        try await test.keys.recordClient(use, Key.Client(name: "claude-code", version: "2.1"))
        try await test.keys.recordClient(use, Key.Client(name: "claude-code", version: "2.1"))
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id).lastClient == Key.Client(name: "claude-code", version: "2.1"))
        #expect(test.changes.count == before + 1)
        try await test.keys.recordClient(use, Key.Client(name: "claude-code", version: "2.2"))
        #expect(test.changes.count == before + 2)
        if case .keyUpdated(let updated) = test.changes.last?.event { #expect(updated.lastClient?.version == "2.2") }
    }
}
