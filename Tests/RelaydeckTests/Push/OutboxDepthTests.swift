@testable import Relaydeck
import SQLite
import Testing

/// The outbox figures of `/metrics`: bounded reads, whatever the outbox holds.
@Suite struct OutboxDepthTests {
    static func job(_ number: Int) -> PushJob {
        PushJob(accountID: "acc_1", deviceID: "dev_\(number)", tokenKind: .apns, environment: .production, token: "t\(number)",
                pushType: "alert", topic: "app", priority: 10, payload: Array("{}".utf8))
    }

    @Test("an empty outbox has no jobs and no oldest job")
    func empty() async throws {
        let store = Store(path: ":memory:")
        _ = try store.open()
        defer { store.close() }
        #expect(try await OutboxDepth.read(store) == OutboxDepth(jobs: 0, oldestCreatedAt: nil))
    }

    @Test("the jobs are counted up to the cap, and the oldest is the first written, whatever its due time")
    func countsUpToTheCap() async throws {
        let store = Store(path: ":memory:")
        _ = try store.open()
        defer { store.close() }
        try await store.writing { db in
            // Written later, but due first: a retried job's due time moves, its age does not.
            for number in 0..<7 {
                try await Self.job(number).insert(db, dueAt: 9_000 - Int64(number), now: 1_000 + Int64(number))
            }
        }
        #expect(try await OutboxDepth.read(store) == OutboxDepth(jobs: 7, oldestCreatedAt: 1_000))
        #expect(try await OutboxDepth.read(store, cap: 5).jobs == 5)
    }

    @Test("both reads go through an index or the table's first rows, never a sort of the outbox")
    func queryPlans() throws {
        let store = Store(path: ":memory:")
        _ = try store.open()
        defer { store.close() }
        let plans = try store.read { db in
            try [(OutboxDepth.countJobs(.sqlite), [SQLiteValue.integer(5)]), (OutboxDepth.oldestJob, [])].map { sql, values in
                try db.rows("EXPLAIN QUERY PLAN " + sql, values) { try $0.text("detail") }.joined(separator: "; ")
            }
        }
        #expect(plans[0].contains("COVERING INDEX push_jobs_due"), "\(plans[0])")
        #expect(!plans[1].contains("TEMP B-TREE"), "\(plans[1])")
    }
}
