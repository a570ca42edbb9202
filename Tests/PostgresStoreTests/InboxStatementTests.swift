@testable import Relaydeck
import SQLite
import Testing

/// The statements of `Inbox` through both sessions, on the same rows
/// (`ServiceStatementTests.BothStores`: the filled store, where key_1 has an unread and a read
/// item and key_2 one unread), in the order the service runs them: items of one millisecond
/// kept in the order they were added (`rowid`), the unread cap with its larger-of-two written
/// per dialect, reads, pruning, the labels `send` resolves. Each answers the same in both.
@Suite struct InboxStatementTests {
    /// An item as the transcript says it: what a read gave, every column.
    static func text(of item: InboxItem) -> String {
        let from = switch item.from {
        case .person: "person"
        case .agent(let keyID, let label): "\(keyID) (\(label))"
        }
        return "\(item.id) to \(item.accountID)/\(item.keyID) \(item.kind.rawValue) from \(from) task \(item.taskID ?? "-") "
            + "question \(item.questionID ?? "-") \"\(item.text)\" at \(item.createdAt) read \(item.readAt.map(String.init) ?? "-")"
    }

    @Test func inboxStatementsAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said: [String] = []
            func unread(_ key: String, limit: Int64 = 10) async throws -> String {
                "unread of \(key): \(try await db.rows(InboxSQL.unread, [.text(key), .integer(limit)]) { try InboxItem(row: $0).id })"
            }
            func recent(_ key: String, limit: Int64 = 50) async throws -> String {
                "recent of \(key): \(try await db.rows(InboxSQL.recent, [.text(key), .integer(limit)]) { try InboxItem(row: $0).id })"
            }
            func count(_ key: String) async throws -> String {
                "\(key) has \(try await db.firstRow(InboxSQL.unreadCount, [.text(key)]) { try $0.int("unread") } ?? -1) unread"
            }
            func insert(_ id: String, from: (StoreValue, StoreValue), task: StoreValue, question: StoreValue, text: String,
                        at: Int64) async throws -> String {
                let added = try await db.run(InboxSQL.insert, .text(id), "acc_1", "key_1", "message", from.0, from.1, task,
                                             question, .text(text), .integer(at))
                return "added \(id): \(added)"
            }
            func textBytes() async throws -> String {
                let key = try await db.firstRow("SELECT text_bytes FROM keys WHERE id = 'key_1'") { try $0.int("text_bytes") }
                let account = try await db.firstRow("SELECT text_bytes FROM accounts WHERE id = 'acc_1'") { try $0.int("text_bytes") }
                return "text bytes: key_1 \(key ?? -1), acc_1 \(account ?? -1)"
            }
            for (account, label) in [("acc_1", "Claude Code"), ("acc_1", "claude code"), ("acc_1", "Old"), ("acc_2", "Old")] {
                let keys = try await db.rows(InboxSQL.keysByLabel, [.text(account), .text(label)]) { try $0.text("id") }
                said.append("\(label) in \(account): \(keys)")
            }
            said.append(try await count("key_1"))
            said.append(try await count("key_2"))
            said.append(try await count("key_none"))
            let first = try await db.rows(InboxSQL.unread, [.text("key_1"), .integer(10)]) { Self.text(of: try InboxItem(row: $0)) }
            said.append("unread of key_1: \(first)")
            let all = try await db.rows(InboxSQL.recent, [.text("key_1"), .integer(50)]) { Self.text(of: try InboxItem(row: $0)) }
            said.append("recent of key_1: \(all)")
            said.append(try await textBytes())
            try await db.begin()
            // Three in one millisecond, inserted in the order a, c, b: read in that order.
            said.append(try await insert("itm_a", from: ("key_2", "Cursor"), task: "tsk_1", question: .null, text: "first ✓", at: 30))
            said.append(try await insert("itm_c", from: (.null, .null), task: .null, question: "qst_1", text: "second", at: 30))
            said.append(try await insert("itm_b", from: (.null, .null), task: .null, question: .null, text: "third 日本", at: 30))
            // The triggers count the texts: 9 + 6 + 12 bytes more.
            said.append(try await textBytes())
            said.append(try await unread("key_1"))
            said.append(try await unread("key_1", limit: 2))
            said.append(try await recent("key_1", limit: 3))
            said.append(try await count("key_1"))
            // The cap of `add`: past it, the oldest unread go; at or under it, none.
            said.append("over a cap of 2: \(try await db.run(InboxSQL.dropOldestUnread(db.dialect), "key_1", 2))")
            said.append(try await unread("key_1"))
            said.append("at the cap: \(try await db.run(InboxSQL.dropOldestUnread(db.dialect), "key_1", 2))")
            said.append("under a cap of 200: \(try await db.run(InboxSQL.dropOldestUnread(db.dialect), "key_1", 200))")
            said.append("key_2 over a cap of 0: \(try await db.run(InboxSQL.dropOldestUnread(db.dialect), "key_2", 0))")
            said.append(try await count("key_2"))
            said.append("read: \(try await db.run(InboxSQL.markRead, 40, "itm_b"))")
            said.append("read unknown: \(try await db.run(InboxSQL.markRead, 40, "itm_none"))")
            said.append(try await count("key_1"))
            said.append(try await recent("key_1"))
            // Unread before 30 and read before 41 go: itm_2 (read at 22) and itm_b (read at 40).
            said.append("pruned: \(try await db.run(InboxSQL.prune, "key_1", 30, 41))")
            said.append(try await recent("key_1"))
            said.append("pruned unread: \(try await db.run(InboxSQL.prune, "key_1", 31, 0))")
            said.append(try await recent("key_1"))
            // Every item of key_1 gone (42 bytes), and key_2's itm_0 (5) from its account.
            said.append(try await textBytes())
            try await db.rollback()
            said.append(try await count("key_1"))
            said.append(try await recent("key_1"))
            return said
        }
        #expect(sqlite == [
            #"Claude Code in acc_1: ["key_1"]"#, "claude code in acc_1: []", "Old in acc_1: []", #"Old in acc_2: ["key_3"]"#,
            "key_1 has 1 unread", "key_2 has 1 unread", "key_none has 0 unread",
            #"unread of key_1: ["itm_1 to acc_1/key_1 message from key_2 (Cursor) task - question - \"Hello ✉️\" at 20 read -"]"#,
            #"recent of key_1: ["itm_2 to acc_1/key_1 answer from person task tsk_1 question qst_1 \"Yes\" at 21 read 22", "#
                + #""itm_1 to acc_1/key_1 message from key_2 (Cursor) task - question - \"Hello ✉️\" at 20 read -"]"#,
            "text bytes: key_1 92, acc_1 117",
            "added itm_a: 1", "added itm_c: 1", "added itm_b: 1",
            "text bytes: key_1 119, acc_1 144",
            #"unread of key_1: ["itm_1", "itm_a", "itm_c", "itm_b"]"#,
            #"unread of key_1: ["itm_1", "itm_a"]"#,
            #"recent of key_1: ["itm_b", "itm_c", "itm_a"]"#,
            "key_1 has 4 unread",
            "over a cap of 2: 2",
            #"unread of key_1: ["itm_c", "itm_b"]"#,
            "at the cap: 0", "under a cap of 200: 0", "key_2 over a cap of 0: 1", "key_2 has 0 unread",
            "read: 1", "read unknown: 0", "key_1 has 1 unread",
            #"recent of key_1: ["itm_b", "itm_c", "itm_2"]"#,
            "pruned: 2",
            #"recent of key_1: ["itm_c"]"#,
            "pruned unread: 1",
            "recent of key_1: []",
            "text bytes: key_1 77, acc_1 97",
            "key_1 has 1 unread",
            #"recent of key_1: ["itm_2", "itm_1"]"#,
        ])
        #expect(postgres == sqlite)
    }
}
