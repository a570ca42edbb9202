import SQLite

extension Keys {
    /// `rest-api.md#key`: `last_client` is the MCP `clientInfo` of the most recent MCP request
    /// of the key. Writes, and sends `key.updated` (`events.md`), only when it changed.
    public func recordClient(_ use: KeyUse, _ client: Key.Client) throws {
        // Almost always the same client as last time: a read tells, without a savepoint of
        // the turn's transaction and the key's whole row.
        let stored = try store.read { db in
            try db.firstRow(SQL.client, [.text(use.keyID)]) { row in
                try Key.Client.read(row, name: "last_client_name", version: "last_client_version")
            }
        }
        if let stored, stored == client { return }
        try store.write(hub: hub) { db, turn in
            let key = try Self.fetch(db, accountID: use.accountID, keyID: use.keyID)
            guard key.lastClient != client else { return }
            try db.statement(SQL.setClient).run(.text(client.name), .text(client.version), .text(use.keyID))
            var updated = key
            updated.lastClient = client
            try turn.record(Change(accountID: use.accountID, event: .keyUpdated(updated), actor: .key(use.keyID)))
        }
    }
}
