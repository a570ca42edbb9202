@testable import Relaydeck
import SQLite
import Testing

/// The statements of `Keys` through both sessions, on the same rows
/// (`ServiceStatementTests.BothStores`: key_1 and key_2 of acc_1, key_3 of the deleted acc_2),
/// in the order the service runs them: listed newest first by `rowid` (a key made in the same
/// millisecond as another still comes first), the live count of the 20-key cap, made, renamed,
/// its scopes changed, its use, host and client noted, deleted once. Each answers the same in
/// both.
@Suite struct KeysStatementTests {
    /// A key as the transcript says it: what a read gave, every column.
    static func text(of key: Key) -> String {
        let client = key.lastClient.map { "\($0.name) \($0.version)" } ?? "-"
        return "\(key.accountID)/\(key.id) \"\(key.label)\" \(key.prefix)...\(key.last4) at \(key.createdAt) "
            + "used \(key.lastUsedAt.map(String.init) ?? "-") host \(key.lastHost ?? "-") client \(client) scopes \(key.scopes.bits) "
            + "counts \(key.counts.todo)/\(key.counts.inProgress)/\(key.counts.done)/\(key.counts.cancelled)"
    }

    @Test func keysStatementsAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            typealias SQL = Keys.SQL
            var said: [String] = []
            func list(_ account: String) async throws -> String {
                "keys of \(account): \(try await db.rows(SQL.list, [.text(account)]) { try Key(row: $0, accountID: account).id })"
            }
            func get(_ key: String, of account: String = "acc_1") async throws -> String {
                let found = try await db.firstRow(SQL.get, [.text(key), .text(account)]) { Self.text(of: try Key(row: $0, accountID: account)) }
                return "\(key) of \(account): \(found ?? "none")"
            }
            func client(_ key: String) async throws -> String {
                let found = try await db.firstRow(SQL.client, [.text(key)]) { row in
                    try Key.Client.read(row, name: "last_client_name", version: "last_client_version").map { "\($0.name) \($0.version)" } ?? "-"
                }
                return "client of \(key): \(found ?? "no row")"
            }
            said.append(try await list("acc_1"))
            said.append(try await list("acc_2"))
            said.append(try await get("key_1"))
            said.append(try await get("key_2"))
            said.append(try await get("key_1", of: "acc_2"))
            said.append("live of acc_1: \(try await db.count(SQL.countLive, "acc_1"))")
            said.append(try await client("key_1"))
            said.append(try await client("key_2"))
            try await db.begin()
            // Made in key_2's millisecond: newer by its row, not its time.
            let made = try await db.run(SQL.insert, "key_4", "acc_1", "Zed ✓", .blob([0xAA, 0x04]), "mck_", "qrst", 1_700_000_000_101, 33)
            said.append("made: \(made)")
            said.append(try await list("acc_1"))
            said.append("live of acc_1: \(try await db.count(SQL.countLive, "acc_1"))")
            said.append("renamed: \(try await db.run(SQL.updateLabel, "Renamed", "key_4", "acc_1"))")
            said.append("renamed by acc_2: \(try await db.run(SQL.updateLabel, "Mine", "key_4", "acc_2"))")
            said.append("scopes: \(try await db.run(SQL.updateScopes, 3, "key_4", "acc_1"))")
            said.append("scopes by acc_2: \(try await db.run(SQL.updateScopes, 63, "key_4", "acc_2"))")
            said.append("used: \(try await db.run(SQL.touch, 500, "key_4"))")
            said.append("host: \(try await db.run(SQL.setHost, "laptop", "key_4"))")
            said.append("client: \(try await db.run(SQL.setClient, "cursor", "1.2", "key_4"))")
            said.append(try await get("key_4"))
            said.append(try await client("key_4"))
            said.append("deleted: \(try await db.run(SQL.markDeleted, 600, "key_4", "acc_1"))")
            said.append("deleted again: \(try await db.run(SQL.markDeleted, 601, "key_4", "acc_1"))")
            said.append("deleted by acc_2: \(try await db.run(SQL.markDeleted, 602, "key_1", "acc_2"))")
            said.append(try await get("key_4"))
            said.append("renamed after: \(try await db.run(SQL.updateLabel, "Back", "key_4", "acc_1"))")
            said.append("scopes after: \(try await db.run(SQL.updateScopes, 63, "key_4", "acc_1"))")
            said.append(try await list("acc_1"))
            said.append("live of acc_1: \(try await db.count(SQL.countLive, "acc_1"))")
            // The use of a key is noted on its row whatever it is (the gate found it live).
            said.append("used after: \(try await db.run(SQL.touch, 700, "key_4"))")
            said.append("used unknown: \(try await db.run(SQL.touch, 700, "key_none"))")
            try await db.rollback()
            said.append(try await list("acc_1"))
            return said
        }
        #expect(sqlite == [
            #"keys of acc_1: ["key_2", "key_1"]"#, #"keys of acc_2: ["key_3"]"#,
            #"key_1 of acc_1: acc_1/key_1 "Claude Code" mck_...wxyz at 1700000000100 used 1700000000200 host - client claude-code  scopes 63 counts 0/0/0/0"#,
            #"key_2 of acc_1: acc_1/key_2 "Cursor “work” ✓" mck_...abcd at 1700000000101 used - host - client - scopes 5 counts 0/0/0/0"#,
            "key_1 of acc_2: none",
            "live of acc_1: 2",
            "client of key_1: claude-code ", "client of key_2: -",
            "made: 1",
            #"keys of acc_1: ["key_4", "key_2", "key_1"]"#,
            "live of acc_1: 3",
            "renamed: 1", "renamed by acc_2: 0", "scopes: 1", "scopes by acc_2: 0", "used: 1", "host: 1", "client: 1",
            #"key_4 of acc_1: acc_1/key_4 "Renamed" mck_...qrst at 1700000000101 used 500 host laptop client cursor 1.2 scopes 3 counts 0/0/0/0"#,
            "client of key_4: cursor 1.2",
            "deleted: 1", "deleted again: 0", "deleted by acc_2: 0",
            "key_4 of acc_1: none",
            "renamed after: 0", "scopes after: 0",
            #"keys of acc_1: ["key_2", "key_1"]"#,
            "live of acc_1: 2",
            "used after: 1", "used unknown: 0",
            #"keys of acc_1: ["key_2", "key_1"]"#,
        ])
        #expect(postgres == sqlite)
    }
}
