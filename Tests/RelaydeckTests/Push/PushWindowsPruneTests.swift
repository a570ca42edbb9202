@testable import Relaydeck
import SQLite
import Testing

/// The prune of the push windows that ended with nothing waiting, run on every planned change:
/// it reads only what it may delete, and deletes exactly that.
@Suite struct PushWindowsPruneTests {
    @Test("the prune searches the idle windows' index by age instead of scanning every window")
    func searchesTheIdleIndex() throws {
        let store = Store(path: ":memory:")
        _ = try store.open()
        defer { store.close() }
        let plan = try store.read { db in
            try db.rows("EXPLAIN QUERY PLAN " + OutboxSQL.pruneWindows, [.integer(100_000), .integer(60_000)]) {
                try $0.text("detail")
            }.joined(separator: "; ")
        }
        #expect(plan.contains("SEARCH push_windows USING INDEX push_windows_idle (last_sent_at<?)"), "\(plan)")
        #expect(!plan.contains("SCAN"), "\(plan)")
    }

    @Test("only windows with nothing waiting whose last push is older than the window go")
    func deletesOnlyIdleWindowsPastTheWindow() throws {
        let store = Store(path: ":memory:")
        _ = try store.open()
        defer { store.close() }
        let window: Int64 = 60_000
        let now: Int64 = 1_000_000
        // (subject, last_sent_at, due_at)
        let rows: [(String, Int64?, Int64?)] = [
            ("old-idle", now - window - 1, nil), ("edge-idle", now - window, nil), ("recent-idle", now - 5, nil),
            ("old-waiting", now - window - 1, now + 10), ("never-sent-waiting", nil, now + 10), ("never-sent-idle", nil, nil),
        ]
        try store.write { db in
            for (subject, sent, due) in rows {
                try db.statement("INSERT INTO push_windows (kind, account_id, subject, last_sent_at, due_at) VALUES ('widget', 'acc_1', ?, ?, ?)")
                    .run(.text(subject), sent.map { .integer($0) } ?? .null, due.map { .integer($0) } ?? .null)
            }
            try db.statement(OutboxSQL.pruneWindows).run(.integer(now), .integer(window))
        }
        let left = try store.read { db in
            try db.rows("SELECT subject FROM push_windows ORDER BY subject", []) { try $0.text("subject") }
        }
        #expect(left == ["edge-idle", "never-sent-idle", "never-sent-waiting", "old-waiting", "recent-idle"])
    }
}
