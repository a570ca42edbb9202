@testable import Relaydeck
import SQLite
import Testing

/// The statements of `Questions` through both sessions, on the same rows
/// (`ServiceStatementTests.BothStores`: the filled store's qst_1 of key_1, answered, and qst_2
/// of key_2, pending until 200), in the order the service runs them: asked, listed by status
/// (a JSON array of statuses, read per dialect), answered, cancelled, expired, each once, and
/// a deleted key's questions gone from every read. Each answers the same in both.
@Suite struct QuestionsStatementTests {
    /// A question as the transcript says it: what a read gave, every column.
    static func text(of question: Question) -> String {
        "\(question.id) of \(question.accountID)/\(question.keyID) task \(question.taskID ?? "-") \"\(question.prompt)\" "
            + "\(question.kind.rawValue) \(question.options) \(question.status.rawValue) answer \(question.answer ?? "-") "
            + "at \(question.createdAt) answered \(question.answeredAt.map(String.init) ?? "-") expires \(question.expiresAt)"
    }

    @Test func questionsStatementsAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            typealias SQL = Questions.SQL
            var said: [String] = []
            func get(_ id: String) async throws -> String {
                "\(id): \(try await db.firstRow(SQL.get, [.text(id)]) { Self.text(of: try Question(row: $0)) } ?? "none")"
            }
            func list(key: String? = nil, account: String? = nil, _ statuses: [Question.Status], limit: Int64 = 100) async throws -> String {
                let (sql, owner) = if let key { (SQL.listForKey(db.dialect), key) } else { (SQL.listForAccount(db.dialect), account ?? "") }
                let encoded = Questions.encode(statuses.map(\.rawValue))
                let ids = try await db.rows(sql, [.text(owner), .text(encoded), .integer(limit)]) { try Question(row: $0).id }
                return "\(owner) \(encoded): \(ids)"
            }
            func ids(_ sql: String, _ value: StoreValue) async throws -> [String] {
                try await db.rows(sql, [value]) { try $0.text("id") }
            }
            /// What is due at `at`: the accounts, acc_1's questions, key_1's.
            func due(_ at: Int64) async throws -> String {
                let accounts = try await db.rows(SQL.dueAccounts, [.integer(at)]) { try $0.text("account_id") }
                let ofAccount = try await db.rows(SQL.dueOfAccount, [.integer(at), "acc_1"]) { try $0.text("id") }
                let ofKey = try await db.rows(SQL.dueOfKey, [.integer(at), "key_1"]) { try $0.text("id") }
                return "due at \(at): accounts \(accounts.sorted()), of acc_1 \(ofAccount), of key_1 \(ofKey)"
            }
            func nextExpiry() async throws -> String {
                let at = try await db.firstRow(SQL.nextExpiry, []) { try $0.optionalInt64("at") } ?? nil
                return "next expiry: \(at.map(String.init) ?? "none")"
            }
            func insert(_ id: String, task: StoreValue, _ prompt: String, _ kind: Question.Kind, _ options: [String],
                        at: Int64, expires: Int64) async throws -> String {
                let added = try await db.run(SQL.insert, .text(id), "acc_1", "key_1", task, .text(prompt), .text(kind.rawValue),
                                             .text(Questions.encode(options)), .integer(at), .integer(expires))
                return "asked \(id): \(added)"
            }
            said.append(try await get("qst_1"))
            said.append(try await get("qst_2"))
            said.append(try await get("qst_none"))
            said.append(try await list(key: "key_1", [.answered]))
            said.append(try await list(key: "key_1", [.pending]))
            said.append(try await list(account: "acc_1", [.pending, .answered]))
            said.append(try await list(account: "acc_1", [.pending, .answered], limit: 1))
            said.append(try await list(account: "acc_1", []))
            for (task, key) in [("tsk_1", "key_1"), ("tsk_1", "key_2"), ("tsk_none", "key_1")] {
                said.append("\(task) of \(key): \(try await db.exists(SQL.taskOfKey, .text(task), .text(key)))")
            }
            said.append("pending of key_2: \(try await db.count(SQL.countPending, "key_2"))")
            said.append(try await nextExpiry())
            said.append(try await due(199))
            said.append(try await due(200))
            try await db.begin()
            said.append(try await insert("qst_3", task: "tsk_1", "Deploy now?", .confirm, Question.confirmOptions, at: 300, expires: 400))
            said.append(try await insert("qst_4", task: .null, "Why “so”? 😀", .text, [], at: 300, expires: 350))
            said.append(try await get("qst_3"))
            said.append(try await get("qst_4"))
            said.append("pending of key_1: \(try await db.count(SQL.countPending, "key_1"))")
            // One millisecond: the larger ID first.
            said.append(try await list(key: "key_1", [.pending]))
            said.append("pending of tsk_1: \(try await ids(SQL.pendingOfTask, "tsk_1"))")
            said.append(try await due(350))
            said.append("answered: \(try await db.run(SQL.answer, "Yes", 310, 310, "qst_3"))")
            said.append("answered again: \(try await db.run(SQL.answer, "No", 311, 311, "qst_3"))")
            said.append("cancelled: \(try await db.run(SQL.cancel, 311, "qst_4"))")
            said.append("cancelled again: \(try await db.run(SQL.cancel, 312, "qst_4"))")
            said.append("expired: \(try await db.run(SQL.expire, 312, "qst_2"))")
            said.append("expired again: \(try await db.run(SQL.expire, 313, "qst_2"))")
            said.append("answered after it expired: \(try await db.run(SQL.answer, "x", 313, 313, "qst_2"))")
            said.append(try await get("qst_3"))
            said.append(try await nextExpiry())
            said.append("pending of tsk_1: \(try await ids(SQL.pendingOfTask, "tsk_1"))")
            said.append(try await list(account: "acc_1", Question.Status.allCases))
            said.append(try await list(account: "acc_1", [.expired, .cancelled]))
            // A deleted key's questions are gone from every read.
            said.append("key_2 deleted: \(try await db.run(Keys.SQL.markDeleted, 320, "key_2", "acc_1"))")
            said.append(try await get("qst_2"))
            said.append(try await list(account: "acc_1", Question.Status.allCases))
            said.append(try await list(key: "key_2", Question.Status.allCases))
            try await db.rollback()
            said.append(try await list(account: "acc_1", Question.Status.allCases))
            return said
        }
        #expect(sqlite == [
            #"qst_1: qst_1 of acc_1/key_1 task tsk_1 "Ship it?" choice ["Yes", "No"] answered answer Yes at 10 answered 11 expires 100"#,
            #"qst_2: qst_2 of acc_1/key_2 task - "Anything else?" text [] pending answer - at 12 answered - expires 200"#,
            "qst_none: none",
            #"key_1 ["answered"]: ["qst_1"]"#,
            #"key_1 ["pending"]: []"#,
            #"acc_1 ["pending","answered"]: ["qst_2", "qst_1"]"#,
            #"acc_1 ["pending","answered"]: ["qst_2"]"#,
            "acc_1 []: []",
            "tsk_1 of key_1: true", "tsk_1 of key_2: false", "tsk_none of key_1: false",
            "pending of key_2: 1",
            "next expiry: 200",
            "due at 199: accounts [], of acc_1 [], of key_1 []",
            #"due at 200: accounts ["acc_1"], of acc_1 ["qst_2"], of key_1 []"#,
            "asked qst_3: 1", "asked qst_4: 1",
            #"qst_3: qst_3 of acc_1/key_1 task tsk_1 "Deploy now?" confirm ["Yes", "No"] pending answer - at 300 answered - expires 400"#,
            #"qst_4: qst_4 of acc_1/key_1 task - "Why “so”? 😀" text [] pending answer - at 300 answered - expires 350"#,
            "pending of key_1: 2",
            #"key_1 ["pending"]: ["qst_4", "qst_3"]"#,
            #"pending of tsk_1: ["qst_3"]"#,
            #"due at 350: accounts ["acc_1"], of acc_1 ["qst_2", "qst_4"], of key_1 ["qst_4"]"#,
            "answered: 1", "answered again: 0", "cancelled: 1", "cancelled again: 0", "expired: 1", "expired again: 0",
            "answered after it expired: 0",
            #"qst_3: qst_3 of acc_1/key_1 task tsk_1 "Deploy now?" confirm ["Yes", "No"] answered answer Yes at 300 answered 310 expires 400"#,
            "next expiry: none",
            "pending of tsk_1: []",
            #"acc_1 ["pending","answered","expired","cancelled"]: ["qst_4", "qst_3", "qst_2", "qst_1"]"#,
            #"acc_1 ["expired","cancelled"]: ["qst_4", "qst_2"]"#,
            "key_2 deleted: 1",
            "qst_2: none",
            #"acc_1 ["pending","answered","expired","cancelled"]: ["qst_4", "qst_3", "qst_1"]"#,
            #"key_2 ["pending","answered","expired","cancelled"]: []"#,
            #"acc_1 ["pending","answered","expired","cancelled"]: ["qst_2", "qst_1"]"#,
        ])
        #expect(postgres == sqlite)
    }
}
