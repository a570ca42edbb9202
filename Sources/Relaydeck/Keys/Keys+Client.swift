import SQLite

extension Keys {
    /// `rest-api.md#key`: `last_client` is the MCP `clientInfo` of the most recent MCP request
    /// of the key. Writes, and sends `key.updated` (`events.md`), only when it changed.
    public func recordClient(_ use: KeyUse, _ client: Key.Client) async throws {
        // Almost always the same client as last time: a read tells, without a savepoint of
        // the turn's transaction and the key's whole row.
        let stored = try await store.reading { db in
            try await db.firstRow(SQL.client, [.text(use.keyID)]) { row in
                try Key.Client.read(row, name: "last_client_name", version: "last_client_version")
            }
        }
        if let stored, stored == client { return }
        try await store.writing(hub: hub, account: use.accountID) { db, turn in
            let key = try await Self.fetch(db, accountID: use.accountID, keyID: use.keyID)
            guard key.lastClient != client else { return }
            try await db.run(SQL.setClient, .text(client.name), .text(client.version), .text(use.keyID))
            var updated = key
            updated.lastClient = client
            try await turn.record(Change(accountID: use.accountID, event: .keyUpdated(updated), actor: .key(use.keyID)))
        }
    }
}
