import Clock
import SQLite

/// The push outbox as the dispatcher sees it (`PushPlanner` fills it): the jobs that are due,
/// the coalescing windows that end, and what becomes of a job once APNs answered. Every
/// method is one short transaction of its own, run on the loop between requests. Several
/// nodes on one database share it: a job is claimed with a lease (`claimDue`), and a window
/// is opened by one node (PostgreSQL's `SKIP LOCKED`).
public final class Outbox {
    private let store: any SessionStore
    private let clock: any Clock
    private let planner: PushPlanner
    /// How long a claimed job is this node's (`PUSH_LEASE_SECONDS`): longer than any send
    /// can take, so a slow answer is never sent twice. A node that dies with jobs claimed
    /// leaves them to the others for this long.
    public let leaseMillis: Int64

    public init(store: any SessionStore, clock: any Clock, planner: PushPlanner, leaseMillis: Int64 = Outbox.defaultLeaseMillis) {
        self.store = store
        self.clock = clock
        self.planner = planner
        self.leaseMillis = leaseMillis
    }

    /// The lease unless the operator sets another: the APNs client gives up on a request
    /// after 30 seconds, and a lease shorter than the longest send may push twice.
    public static let defaultLeaseMillis: Int64 = 120_000

    /// Turns the windows whose time has come into jobs, with the state of now: a Live
    /// Activity `update` for each registration of the task, a widget reload for the device.
    /// The window then starts again from now. Returns how many jobs it made. `now`: the
    /// drain's one reading of the clock (`nextDue(after:)`).
    @discardableResult
    public func openDueWindows(limit: Int = 200, now: Int64? = nil) async throws -> Int {
        let now = now ?? clock.wallMillis
        guard let next = try await nextWindow(), next <= now else { return 0 }
        return try await store.writing { db in
            let windows = try await db.rows(OutboxSQL.dueWindows(db.dialect), [.integer(now), .integer(Int64(limit))]) { row in
                (kind: try row.text("kind"), accountID: try row.text("account_id"), subject: try row.text("subject"))
            }
            var made = 0
            for window in windows {
                made += window.kind == "activity"
                    ? try await activityUpdate(db, window.accountID, taskID: window.subject, now: now)
                    : try await widgetReload(db, window.accountID, deviceID: window.subject, now: now)
                try await db.run(OutboxSQL.windowSent, .integer(now), .text(window.kind), .text(window.accountID),
                                 .text(window.subject))
            }
            try await db.run(OutboxSQL.pruneWindows, .integer(now), .integer(PushPlanner.widgetWindowMillis))
            return made
        }
    }

    private func activityUpdate(_ db: any StoreSession, _ accountID: String, taskID: String, now: Int64) async throws -> Int {
        guard let task = try await planner.task(db, taskID), task.accountID == accountID,
              try await db.firstRow(OutboxSQL.liveActivitiesSetting, [.text(accountID)], { try $0.bool("live_activities") }) == true
        else { return 0 }
        let registrations = try await planner.registrations(db, accountID, taskID)
        guard !registrations.isEmpty else { return 0 }
        let payload = PushPayloads.liveActivity(.update, try await planner.state(db, task), nowMillis: now)
        for registration in registrations {
            try await planner.activityJob(registration, task, payload).insert(db, dueAt: now, now: now)
        }
        return registrations.count
    }

    private func widgetReload(_ db: any StoreSession, _ accountID: String, deviceID: String, now: Int64) async throws -> Int {
        guard let device = try await db.firstRow(OutboxSQL.device, [.text(accountID), .text(deviceID)], { try Device(row: $0) }),
              let token = device.widgetPushToken, let topic = planner.settings.topic(device.platform, .widgets) else { return 0 }
        let job = PushJob(accountID: accountID, deviceID: deviceID, tokenKind: .widget, environment: device.environment,
                          token: token, pushType: "widgets", topic: topic, priority: 5, payload: PushPayloads.widgetReload)
        try await job.insert(db, dueAt: now, now: now)
        return 1
    }

    /// Claims up to `limit` jobs that are due: each is leased to this dispatcher for
    /// `leaseMillis` (`leased_until`: no other drain, of this node or another, takes it
    /// meanwhile), and comes back by itself if this node dies before it is finished or
    /// retried. PostgreSQL skips the rows another node's claim holds (`FOR
    /// UPDATE SKIP LOCKED`); SQLite has one writer. Oldest first (by ID). Due means due at
    /// `now` (the drain's one reading); the lease runs from the clock as the claim runs, since
    /// the drain's reading may be seconds older on a loaded node and would shorten it.
    public func claimDue(limit: Int, now: Int64? = nil) async throws -> [PushJob] {
        let now = now ?? clock.wallMillis
        let jobs = try await store.writing { db in
            try await db.rows(OutboxSQL.claimJobs(db.dialect), [.integer(clock.wallMillis + leaseMillis), .integer(now),
                                                               .integer(Int64(limit))]) { try PushJob(row: $0) }
        }
        return jobs.sorted { $0.id < $1.id }
    }

    /// Jobs claimed and not sent (the dispatcher stops): due again now, not when their lease
    /// ends.
    public func release(_ ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await store.writing { db in
            for id in ids { try await db.run(OutboxSQL.release, .integer(id)) }
        }
    }

    /// At the start of a process of a SQLite store, the only one that store has: the leases
    /// of the process before it (killed with jobs in flight) end now, and those jobs go at
    /// once. With PostgreSQL another node may hold them: they wait for their lease's end.
    public func releaseLeftLeases() async throws {
        try await store.writing { db in
            guard db.dialect == .sqlite else { return }
            try await db.run(OutboxSQL.releaseAll)
        }
    }

    /// The earliest time (wall milliseconds) after `now` that a job or a window is due, if
    /// any: what was due by then is being sent, or waits for a free place. A drain passes
    /// the `now` its windows were opened and its jobs claimed with: a job or a window that
    /// came due while the drain ran is then after it, and a timer comes for it at once (read
    /// anew, the clock would have put it before "now" and nothing would ever open it).
    public func nextDue(after now: Int64? = nil) async throws -> Int64? {
        let now = SQLiteValue.integer(now ?? clock.wallMillis)
        return try await store.reading { db in
            let job = try await db.firstRow(OutboxSQL.nextJob, [now]) { try $0.optionalInt64("at") } ?? nil
            let window = try await db.firstRow(OutboxSQL.nextWindowAfter, [now]) { try $0.optionalInt64("at") } ?? nil
            return [job, window].compactMap { $0 }.min()
        }
    }

    private func nextWindow() async throws -> Int64? {
        try await store.reading { db in try await db.firstRow(OutboxSQL.nextWindow, []) { try $0.optionalInt64("at") } ?? nil }
    }

    /// APNs took it, or refused it for good: it goes.
    public func finish(_ job: PushJob) async throws {
        try await store.writing { db in try await db.run(OutboxSQL.deleteJob, .integer(job.id)) }
    }

    /// Tries the job again at `at` (wall milliseconds).
    public func retry(_ job: PushJob, at: Int64) async throws {
        try await store.writing { db in try await db.run(OutboxSQL.retryJob, .integer(at), .integer(job.id)) }
    }

    /// `push.md#tokens-that-are-not-valid`: the job goes, and so does its token: the
    /// device's token of that kind is set to `null`, or the Live Activity registration is
    /// removed, unless the device registered another token meanwhile.
    public func tokenIsInvalid(_ job: PushJob) async throws {
        let now = clock.wallMillis
        try await store.writing { db in
            try await db.run(OutboxSQL.deleteJob, .integer(job.id))
            let account = SQLiteValue.text(job.accountID), device = SQLiteValue.text(job.deviceID)
            let token = SQLiteValue.text(job.token)
            switch job.tokenKind {
            case .apns: try await db.run(OutboxSQL.clearAPNsToken, .integer(now), account, device, token)
            case .start: try await db.run(OutboxSQL.clearStartToken, .integer(now), account, device, token)
            case .widget: try await db.run(OutboxSQL.clearWidgetToken, .integer(now), account, device, token)
            case .activity:
                try await db.run(OutboxSQL.removeRegistration, .text(job.taskID ?? ""), device, account, token)
            }
        }
    }

    /// How many jobs wait (tests, the log).
    public func jobCount() async throws -> Int {
        try await store.reading { db in try await db.count(OutboxSQL.jobCount) }
    }
}
