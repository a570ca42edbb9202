import Clock
import SQLite

/// The Web Push outbox as the dispatcher sees it (`WebPushPlanner` fills it): the jobs that
/// are due, each with its subscription's keys of now, and what becomes of a job once the push
/// service answered. Every method is one short transaction of its own, on the loop; several
/// nodes share it through claims with leases.
public final class WebPushOutbox {
    private let store: any SessionStore
    private let clock: any Clock
    /// How long a claimed job is this node's, as in the APNs outbox (`Outbox.leaseMillis`).
    public let leaseMillis: Int64

    public init(store: any SessionStore, clock: any Clock, leaseMillis: Int64 = Outbox.defaultLeaseMillis) {
        self.store = store
        self.clock = clock
        self.leaseMillis = leaseMillis
    }

    /// A due job and where it goes: nil `subscription` when the subscription is gone.
    public struct Due: Sendable {
        public let job: WebPushJob
        public let subscription: WebPushSubscription?
    }

    /// Claims up to `limit` due jobs, each with its subscription's keys of now, as the APNs
    /// outbox does (`Outbox.claimDue`): leased for `leaseMillis`, passed over by
    /// another node's claim in PostgreSQL. Oldest first (by ID).
    public func claimDue(limit: Int, now: Int64? = nil) async throws -> [Due] {
        let now = now ?? clock.wallMillis
        return try await store.writing { db in
            let jobs = try await db.rows(SQL.claimJobs(db.dialect), [.integer(clock.wallMillis + leaseMillis), .integer(now),
                                                                   .integer(Int64(limit))]) { try WebPushJob(row: $0) }
            var due: [Due] = []
            for job in jobs.sorted(by: { $0.id < $1.id }) {
                let subscription = try await db.firstRow(WebPushSubscriptions.SQL.get,
                                                         [.text(job.accountID), .text(job.subscriptionID)]) {
                    try WebPushSubscription(row: $0)
                }
                due.append(Due(job: job, subscription: subscription))
            }
            return due
        }
    }

    /// Jobs claimed and not sent (the dispatcher stops): due again now.
    public func release(_ ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await store.writing { db in
            for id in ids { try await db.run(SQL.release, .integer(id)) }
        }
    }

    /// At the start of a process of a SQLite store, the only one that store has: the leases
    /// of the process before it (killed with jobs in flight) end now, and those jobs go at
    /// once. With PostgreSQL another node may hold them: they wait for their lease's end.
    public func releaseLeftLeases() async throws {
        try await store.writing { db in
            guard db.dialect == .sqlite else { return }
            try await db.run(SQL.releaseAll)
        }
    }

    /// The earliest time (wall milliseconds) after `now` that a job is due, if any: as
    /// `Outbox.nextDue(after:)`, the `now` the drain claimed with.
    public func nextDue(after now: Int64? = nil) async throws -> Int64? {
        try await store.reading { db in
            try await db.firstRow(SQL.nextJob, [.integer(now ?? clock.wallMillis)]) { try $0.optionalInt64("at") } ?? nil
        }
    }

    /// Taken, refused for good, expired, or its subscription gone: the job goes.
    public func finish(_ job: WebPushJob) async throws {
        try await store.writing { db in try await db.run(SQL.deleteJob, .integer(job.id)) }
    }

    /// Tries the job again at `at` (wall milliseconds).
    public func retry(_ job: WebPushJob, at: Int64) async throws {
        try await store.writing { db in try await db.run(SQL.retryJob, .integer(at), .integer(job.id)) }
    }

    /// `404` or `410`: the browser's subscription ended. It goes with its jobs, unless the
    /// browser stored another endpoint under that ID meanwhile.
    public func subscriptionIsGone(_ job: WebPushJob, endpoint: String) async throws {
        try await store.writing { db in
            try await db.run(SQL.deleteJob, .integer(job.id))
            let removed = try await db.run(SQL.deleteGoneSubscription, .text(job.accountID), .text(job.subscriptionID),
                                           .text(endpoint))
            if removed > 0 {
                try await db.run(SQL.deleteJobsOfSubscription, .text(job.accountID), .text(job.subscriptionID))
            }
        }
    }

    /// How many jobs wait (tests, the log).
    public func jobCount() async throws -> Int {
        try await store.reading { db in try await db.count(SQL.jobCount) }
    }

    enum SQL {
        static let columns = """
            id, account_id, subscription_id, kind, urgency, topic, payload, expires_at, attempts, created_at
            """
        static let insertJob = """
            INSERT INTO web_push_jobs (account_id, subscription_id, kind, urgency, topic, payload, expires_at, due_at, \
            created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """
        /// $1 the lease's end, $2 now, $3 how many (`Outbox`'s claim).
        static func claimJobs(_ dialect: StoreDialect) -> String {
            """
            UPDATE web_push_jobs SET leased_until = $1 WHERE id IN (SELECT id FROM web_push_jobs WHERE due_at <= $2 \
            AND (leased_until IS NULL OR leased_until <= $2) ORDER BY due_at, id LIMIT $3\
            \(dialect.skipLocked)) RETURNING \(columns)
            """
        }
        static let release = "UPDATE web_push_jobs SET leased_until = NULL WHERE id = $1"
        static let releaseAll = "UPDATE web_push_jobs SET leased_until = NULL WHERE leased_until IS NOT NULL"
        static let nextJob = """
            SELECT min(at) AS at FROM (SELECT min(due_at) AS at FROM web_push_jobs WHERE due_at > $1 \
            UNION ALL SELECT min(leased_until) FROM web_push_jobs WHERE leased_until > $1) next
            """
        static let deleteJob = "DELETE FROM web_push_jobs WHERE id = $1"
        static let retryJob = "UPDATE web_push_jobs SET attempts = attempts + 1, due_at = $1, leased_until = NULL WHERE id = $2"
        static let jobCount = "SELECT count(*) AS n FROM web_push_jobs"
        static let deleteJobsOfAccount = "DELETE FROM web_push_jobs WHERE account_id = $1"
        static let deleteJobsOfSubscription = "DELETE FROM web_push_jobs WHERE account_id = $1 AND subscription_id = $2"
        static let deleteGoneSubscription = "DELETE FROM web_push_subscriptions WHERE account_id = $1 AND id = $2 AND endpoint = $3"
    }
}
