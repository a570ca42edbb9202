import SQLite

/// What `/metrics` says of the push outbox, in two reads that touch a bounded number of rows
/// whatever the outbox holds: the jobs are counted through the `due_at` index up to `cap`
/// (a larger outbox reads as `cap`), and the oldest job is the one with the lowest ID (IDs
/// only grow, so the first row of the table's own B-tree). The windows wait by design and
/// are not counted.
public struct OutboxDepth: Equatable, Sendable {
    public static let cap = 10_000

    /// Jobs waiting to be sent, at most `cap`.
    public let jobs: Int
    /// When the oldest waiting job was written, wall-clock milliseconds; nil when none waits.
    public let oldestCreatedAt: Int64?

    /// SQLite is told the index (its planner would scan the table); PostgreSQL's chooses.
    static func countJobs(_ dialect: StoreDialect) -> String {
        let index = dialect == .sqlite ? " INDEXED BY push_jobs_due" : ""
        return "SELECT count(*) AS n FROM (SELECT 1 FROM push_jobs\(index) LIMIT $1) j"
    }
    static let oldestJob = "SELECT created_at FROM push_jobs ORDER BY id LIMIT 1"

    public static func read(_ store: any SessionStore, cap: Int = OutboxDepth.cap) async throws -> OutboxDepth {
        try await store.reading { db in
            let jobs = try await db.firstRow(countJobs(db.dialect), [.integer(Int64(cap))]) { try $0.int("n") } ?? 0
            let oldest = try await db.firstRow(oldestJob, []) { try $0.int64("created_at") }
            return OutboxDepth(jobs: jobs, oldestCreatedAt: oldest)
        }
    }
}
