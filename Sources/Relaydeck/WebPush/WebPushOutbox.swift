import Clock
import SQLite

/// The Web Push outbox as the dispatcher sees it (`WebPushPlanner` fills it): the jobs that
/// are due, each with its subscription's keys of now, and what becomes of a job once the push
/// service answered. Every method is one short transaction of its own, on the loop.
public final class WebPushOutbox {
    private let store: Store
    private let clock: any Clock

    public init(store: Store, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// A due job and where it goes: nil `subscription` when the subscription is gone.
    public struct Due: Sendable {
        public let job: WebPushJob
        public let subscription: WebPushSubscription?
    }

    /// The jobs due now, oldest first, leaving out those in `sending`.
    public func dueJobs(limit: Int, excluding sending: Set<Int64>) throws -> [Due] {
        let now = clock.wallMillis
        return try store.read { db in
            let jobs = try db.rows(SQL.dueJobs, [.integer(now), .integer(Int64(limit + sending.count))]) { try WebPushJob(row: $0) }
            return try jobs.lazy.filter { !sending.contains($0.id) }.prefix(limit).map { job in
                let subscription = try db.firstRow(WebPushSubscriptions.SQL.get, [.text(job.accountID), .text(job.subscriptionID)]) {
                    try WebPushSubscription(row: $0)
                }
                return Due(job: job, subscription: subscription)
            }
        }
    }

    /// The earliest time (wall milliseconds) after now that a job is due, if any.
    public func nextDue() throws -> Int64? {
        try store.read { db in
            try db.firstRow(SQL.nextJob, [.integer(clock.wallMillis)]) { try $0.optionalInt64("at") } ?? nil
        }
    }

    /// Taken, refused for good, expired, or its subscription gone: the job goes.
    public func finish(_ job: WebPushJob) throws {
        try store.write { db in _ = try db.statement(SQL.deleteJob).run(.integer(job.id)) }
    }

    /// Tries the job again at `at` (wall milliseconds).
    public func retry(_ job: WebPushJob, at: Int64) throws {
        try store.write { db in _ = try db.statement(SQL.retryJob).run(.integer(at), .integer(job.id)) }
    }

    /// `404` or `410`: the browser's subscription ended. It goes with its jobs, unless the
    /// browser stored another endpoint under that ID meanwhile.
    public func subscriptionIsGone(_ job: WebPushJob, endpoint: String) throws {
        try store.write { db in
            _ = try db.statement(SQL.deleteJob).run(.integer(job.id))
            let removed = try db.statement(SQL.deleteGoneSubscription).run(.text(job.accountID), .text(job.subscriptionID),
                                                                         .text(endpoint))
            if removed > 0 {
                try db.statement(SQL.deleteJobsOfSubscription).run(.text(job.accountID), .text(job.subscriptionID))
            }
        }
    }

    /// How many jobs wait (tests, the log).
    public func jobCount() throws -> Int {
        try store.read { db in try db.count(SQL.jobCount) }
    }

    enum SQL {
        static let columns = """
            id, account_id, subscription_id, kind, urgency, topic, payload, expires_at, attempts, created_at
            """
        static let insertJob = """
            INSERT INTO web_push_jobs (account_id, subscription_id, kind, urgency, topic, payload, expires_at, due_at, \
            created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """
        /// ?1 now, ?2 how many.
        static let dueJobs = "SELECT \(columns) FROM web_push_jobs WHERE due_at <= $1 ORDER BY due_at, id LIMIT $2"
        static let nextJob = "SELECT min(due_at) AS at FROM web_push_jobs WHERE due_at > $1"
        static let deleteJob = "DELETE FROM web_push_jobs WHERE id = $1"
        static let retryJob = "UPDATE web_push_jobs SET attempts = attempts + 1, due_at = $1 WHERE id = $2"
        static let jobCount = "SELECT count(*) AS n FROM web_push_jobs"
        static let deleteJobsOfAccount = "DELETE FROM web_push_jobs WHERE account_id = $1"
        static let deleteJobsOfSubscription = "DELETE FROM web_push_jobs WHERE account_id = $1 AND subscription_id = $2"
        static let deleteGoneSubscription = "DELETE FROM web_push_subscriptions WHERE account_id = $1 AND id = $2 AND endpoint = $3"
    }
}
