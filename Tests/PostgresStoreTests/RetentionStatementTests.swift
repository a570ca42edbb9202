import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `Retention`'s statements through both sessions on the same rows (the filled store: a done
/// task updated at 4, an answered question closed at 11 and a pending one, unread items made
/// at 20 and 21 and one read at 22, activity at 30 and 31, a task's move noted at 2, a web
/// session last used at 62, a login link expiring at 60, OAuth's code, access and refresh
/// tokens expiring at 70, 71 and 72 with their grant, and its client last used at 68), each
/// with a cut just past one row and its batch size: each deletes the same rows in both, the
/// triggers take the deleted text off the same counts, and the rows left are the same.
@Suite struct RetentionStatementTests {
    typealias SQL = Retention.SQL

    /// The IDs or keys left in each table retention deletes from, in one line each.
    static func left(_ db: any StoreSession) async throws -> [String] {
        let reads = [
            ("tasks", "SELECT id AS k FROM tasks ORDER BY id"),
            ("questions", "SELECT id AS k FROM questions ORDER BY id"),
            ("inbox_items", "SELECT id AS k FROM inbox_items ORDER BY id"),
            ("activity", "SELECT id AS k FROM activity ORDER BY id"),
            ("task_moves", "SELECT task_id || ' ' || seq AS k FROM task_moves ORDER BY task_id, seq"),
            ("web_sessions", "SELECT id AS k FROM web_sessions ORDER BY id"),
            ("web_login_links", "SELECT account_id || ' ' || expires_at AS k FROM web_login_links ORDER BY expires_at"),
            ("oauth_codes", "SELECT grant_id AS k FROM oauth_codes ORDER BY grant_id"),
            ("oauth_access_tokens", "SELECT grant_id AS k FROM oauth_access_tokens ORDER BY grant_id"),
            ("oauth_refresh_tokens", "SELECT grant_id AS k FROM oauth_refresh_tokens ORDER BY grant_id"),
            ("oauth_grants", "SELECT id AS k FROM oauth_grants ORDER BY id"),
            ("oauth_clients", "SELECT id AS k FROM oauth_clients ORDER BY id"),
        ]
        var lines: [String] = []
        for (table, sql) in reads {
            lines.append("\(table): \(try await db.rows(sql, []) { try $0.text("k") })")
        }
        return lines
    }

    /// The text bytes the triggers keep, per key and per account.
    static func textBytes(_ db: any StoreSession) async throws -> String {
        let keys = try await db.rows("SELECT id, text_bytes FROM keys ORDER BY id", []) { "\(try $0.text("id")) \(try $0.int("text_bytes"))" }
        let accounts = try await db.rows("SELECT id, text_bytes FROM accounts ORDER BY id", []) {
            "\(try $0.text("id")) \(try $0.int("text_bytes"))"
        }
        return "text bytes: \(keys) \(accounts)"
    }

    /// The accounts of the expired tasks (at most `limit` tasks'), and each account's.
    static func expired(_ db: any StoreSession, before cutoff: Int64, limit: Int64 = 200) async throws -> String {
        let accounts = try await db.rows(SQL.accountsWithExpiredTasks, [.integer(cutoff), .integer(limit)]) { try $0.text("account_id") }
        var found: [String] = []
        for account in Set(accounts).sorted() {
            found += try await db.rows(SQL.expiredTasks(db.dialect), [.integer(cutoff), .text(account), .integer(limit)]) { row in
                "\(try row.text("id")) \(account) \(try row.text("key_id")) \(try row.text("status"))"
            }
        }
        return "expired before \(cutoff): \(accounts) \(found)"
    }

    @Test func everyDeletionAnswersTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said = [try await Self.expired(db, before: 4), try await Self.expired(db, before: 5),
                        try await Self.expired(db, before: 99, limit: 1), try await Self.textBytes(db)]
            try await db.begin()
            // Each deletion: a cut that keeps its row, then one that takes it.
            let deletions: [(String, String, [Int64])] = [
                ("questions", SQL.deleteQuestions, [11, 12]),
                ("unread", SQL.deleteUnread, [20, 21]),
                ("read", SQL.deleteRead, [22, 23]),
                ("activity", SQL.deleteActivity, [30, 31]),
                ("moves", SQL.deleteMoves, [2, 3]),
                ("idle sessions", SQL.deleteIdleSessions, [61, 62]),
                ("expired links", SQL.deleteExpiredLinks, [59, 60]),
                // The grant lives while its refresh token may be traded, until 72.
                ("dead grants", SQL.deleteDeadGrants, [71, 72]),
                ("expired access tokens", SQL.deleteExpiredAccessTokens, [70, 71]),
                ("expired refresh tokens", SQL.deleteExpiredRefreshTokens, [71, 72]),
                ("expired codes", SQL.deleteExpiredCodes, [69, 70]),
                // Its grant gone, the client nothing used since 68 goes.
                ("idle clients", SQL.deleteIdleClients, [67, 68]),
            ]
            for (name, sql, cuts) in deletions {
                var counts: [Int] = []
                for cut in cuts { counts.append(try await db.run(sql, .integer(cut), 200)) }
                said.append("\(name): \(counts)")
            }
            said.append(try await Self.textBytes(db))
            said += try await Self.left(db)
            try await db.rollback()
            // A batch deletes at most its size: two unread items and two activity entries due.
            try await db.begin()
            for (name, sql, cut) in [("unread", SQL.deleteUnread, 99 as Int64), ("activity", SQL.deleteActivity, 99)] {
                var counts: [Int] = []
                for _ in 0..<3 { counts.append(try await db.run(sql, .integer(cut), 1)) }
                said.append("\(name) one at a time: \(counts)")
            }
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "expired before 4: [] []", #"expired before 5: ["acc_1"] ["tsk_2 acc_1 key_2 done"]"#,
            #"expired before 99: ["acc_1"] ["tsk_2 acc_1 key_2 done"]"#,
            #"text bytes: ["key_1 92", "key_2 25", "key_3 18"] ["acc_1 117", "acc_2 18"]"#,
            "questions: [0, 1]", "unread: [0, 1]", "read: [0, 1]", "activity: [0, 1]", "moves: [0, 1]", "idle sessions: [0, 1]",
            "expired links: [0, 1]", "dead grants: [0, 1]", "expired access tokens: [0, 1]", "expired refresh tokens: [0, 1]",
            "expired codes: [0, 1]", "idle clients: [0, 1]",
            // qst_1's 23 bytes and itm_1's 12 and itm_2's 3 off key_1 and acc_1.
            #"text bytes: ["key_1 54", "key_2 25", "key_3 18"] ["acc_1 79", "acc_2 18"]"#,
            #"tasks: ["tsk_1", "tsk_2", "tsk_3"]"#, #"questions: ["qst_2"]"#, #"inbox_items: ["itm_0"]"#, #"activity: ["act_2"]"#,
            "task_moves: []", "web_sessions: []", "web_login_links: []", "oauth_codes: []", "oauth_access_tokens: []",
            "oauth_refresh_tokens: []", "oauth_grants: []", "oauth_clients: []",
            "unread one at a time: [1, 1, 0]", "activity one at a time: [1, 1, 0]",
        ])
        #expect(postgres == sqlite)
    }
}
