import Clock
@testable import Relaydeck
import Testing

/// `Keys.recordClient`: the key's `last_client` follows the MCP `clientInfo`
/// (`rest-api.md#key`), with `key.updated` only when it changed.
@Suite struct KeyClientTests {
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

    @Test func theLastClientChangesOnlyWhenItDiffers() throws {
        let before = test.changes.count
        try test.keys.recordClient(use, Key.Client(name: "claude-code", version: "2.1"))
        try test.keys.recordClient(use, Key.Client(name: "claude-code", version: "2.1"))
        #expect(try test.keys.get(accountID: account.id, keyID: key.id).lastClient == Key.Client(name: "claude-code", version: "2.1"))
        #expect(test.changes.count == before + 1)
        try test.keys.recordClient(use, Key.Client(name: "claude-code", version: "2.2"))
        #expect(test.changes.count == before + 2)
        if case .keyUpdated(let updated) = test.changes.last?.event { #expect(updated.lastClient?.version == "2.2") }
    }
}
