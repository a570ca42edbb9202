import Postgres
@testable import PostgresStore
import Relaydeck
import Testing

/// The storage quota's counting triggers (migrations 8 and 14) count in PostgreSQL exactly as
/// in SQLite: the same statements through both stores, the counts compared after each.
@Suite struct TextCountTests {
    static let counts = "SELECT id, text_bytes FROM keys ORDER BY id"
    static let accountCounts = "SELECT id, text_bytes FROM accounts ORDER BY id"

    static let insertAccount = "INSERT INTO accounts (id, token_hash, created_at) VALUES ($1, $2, 1)"
    static let insertKey = """
        INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at) VALUES ($1, $2, $1, $3, 'mck_', 'abcd', 1)
        """
    static let insertTask = """
        INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, status_note, source, \
        created_at, updated_at, created_seq, changed_seq) VALUES ($1, $2, $3, $4, $5, 'todo', 'medium', 0, $6, 'agent', 1, 1, 1, 1)
        """
    static let insertQuestion = """
        INSERT INTO questions (id, account_id, key_id, prompt, kind, options, status, answer, created_at, expires_at) \
        VALUES ($1, $2, $3, $4, 'choice', $5, 'pending', NULL, 1, 100)
        """
    static let insertItem = """
        INSERT INTO inbox_items (id, account_id, key_id, kind, text, created_at) VALUES ($1, $2, $3, 'message', $4, 1)
        """

    /// What the steps do, and the statement of each.
    static let steps: [(String, String, [PostgresValue])] = [
        ("a task comes", insertTask, ["t1", "a1", "k1", "Résumé ✓", "ünïcode 😀", nil]),
        ("another, with a note", insertTask, ["t2", "a1", "k2", "x", "", "a note"]),
        ("one of the other account", insertTask, ["t3", "a2", "k3", "third", "d", nil]),
        ("a longer title", "UPDATE tasks SET title = $1 WHERE id = $2", ["longer title 😀😀", "t1"]),
        ("progress only: no count moves", "UPDATE tasks SET progress = 50 WHERE id = $1", ["t1"]),
        ("the note goes", "UPDATE tasks SET status_note = NULL WHERE id = $1", ["t2"]),
        ("the same size", "UPDATE tasks SET title = $1 WHERE id = $2", ["y", "t2"]),
        ("to another key of the account", "UPDATE tasks SET key_id = 'k2' WHERE id = $1", ["t1"]),
        ("to another account", "UPDATE tasks SET key_id = 'k3', account_id = 'a2' WHERE id = $1", ["t2"]),
        ("moved and changed at once", "UPDATE tasks SET key_id = 'k1', title = $1 WHERE id = $2", ["both at once", "t3"]),
        ("only the account", "UPDATE tasks SET account_id = 'a1' WHERE id = $1", ["t3"]),
        ("a question", insertQuestion, ["q1", "a1", "k1", "Ship it?", "[\"Yes\",\"No\"]"]),
        ("its answer", "UPDATE questions SET status = 'answered', answer = $1 WHERE id = $2", ["Yes", "q1"]),
        ("a message", insertItem, ["i1", "a1", "k2", "Hello there ✉️"]),
        ("another", insertItem, ["i2", "a2", "k3", "Bye"]),
        ("read: no count moves", "UPDATE inbox_items SET read_at = 5 WHERE id = $1", ["i1"]),
        ("a message goes", "DELETE FROM inbox_items WHERE id = $1", ["i1"]),
        ("a task goes", "DELETE FROM tasks WHERE id = $1", ["t1"]),
        ("the question goes", "DELETE FROM questions WHERE key_id = $1", ["k1"]),
    ]

    @Test func everyChangeCountsTheSameBytesInBothStores() throws {
        let stores = try TwoStores()
        try stores.run(Self.insertAccount, ["a1", .bytes([1])])
        try stores.run(Self.insertAccount, ["a2", .bytes([2])])
        try stores.run(Self.insertKey, ["k1", "a1", .bytes([1])])
        try stores.run(Self.insertKey, ["k2", "a1", .bytes([2])])
        try stores.run(Self.insertKey, ["k3", "a2", .bytes([3])])
        var moved = false
        for (what, sql, values) in Self.steps {
            try stores.run(sql, values)
            let keys = try stores.rows(Self.counts)
            #expect(keys.postgres == keys.sqlite, "\(what): \(keys)")
            let accounts = try stores.rows(Self.accountCounts)
            #expect(accounts.postgres == accounts.sqlite, "\(what): \(accounts)")
            moved = moved || keys.sqlite.contains { $0[1] != "0" }
        }
        #expect(moved)
    }

    /// Migrations 6, 8 and 14 carry rows over: at version 5, the same rows in both, then the
    /// rest of the migrations in both.
    @Test func theMigrationsThatFillColumnsFillThemAlike() throws {
        let stores = try TwoStores(upTo: 5)
        try stores.run(Self.insertAccount, ["a1", .bytes([1])])
        try stores.run(Self.insertKey, ["k1", "a1", .bytes([1])])
        try stores.run(Self.insertKey, ["k2", "a1", .bytes([2])])
        try stores.run(Self.insertTask, ["t1", "a1", "k1", "Résumé ✓", "ünïcode", "note"])
        try stores.run(Self.insertTask, ["t2", "a1", "k2", "Two", "", nil])
        try stores.run(Self.insertQuestion, ["q1", "a1", "k1", "Ship it?", "[\"Yes\",\"No\"]"])
        try stores.run(Self.insertItem, ["i1", "a1", "k2", "Hello ✉️"])
        for (id, at) in [("e1", 10), ("e2", 20)] {
            try stores.run("""
                INSERT INTO activity (id, key_id, at, surface, action, status, duration_ms) VALUES ($1, 'k1', $2, 'rest', 'tasks.create', 'ok', 3)
                """, [.text(id), .integer(Int64(at))])
        }
        try stores.migrateToTheEnd()
        for sql in [Self.counts, Self.accountCounts, "SELECT id, scopes FROM keys ORDER BY id",
                    "SELECT key_id, at, id, surface, action, status, duration_ms FROM activity ORDER BY key_id, at, id"] {
            let rows = try stores.rows(sql)
            #expect(rows.postgres == rows.sqlite, "\(sql)")
            #expect(!rows.sqlite.isEmpty)
        }
        // The account's count is its keys' (migration 14's first statement).
        let keys = try stores.rows(Self.counts).postgres.map { Int($0[1]) ?? 0 }
        #expect(try stores.rows(Self.accountCounts).postgres == [["a1", String(keys.reduce(0, +))]])
        #expect(keys.allSatisfy { $0 > 0 })
    }
}
