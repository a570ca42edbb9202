import Clock
import SQLite

/// The push outbox as the dispatcher sees it (`PushPlanner` fills it): the jobs that are due,
/// the coalescing windows that end, and what becomes of a job once APNs answered. Every
/// method is one short transaction of its own, run on the loop between requests.
public final class Outbox {
    private let store: Store
    private let clock: any Clock
    private let planner: PushPlanner

    public init(store: Store, clock: any Clock, planner: PushPlanner) {
        self.store = store
        self.clock = clock
        self.planner = planner
    }

    /// Turns the windows whose time has come into jobs, with the state of now: a Live
    /// Activity `update` for each registration of the task, a widget reload for the device.
    /// The window then starts again from now. Returns how many jobs it made.
    @discardableResult
    public func openDueWindows(limit: Int = 200) async throws -> Int {
        let now = clock.wallMillis
        guard let next = try nextWindow(), next <= now else { return 0 }
        return try await store.writing { db in
            let windows = try await db.rows(OutboxSQL.dueWindows, [.integer(now), .integer(Int64(limit))]) { row in
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

    /// The jobs due now, oldest first, leaving out those in `sending`.
    public func dueJobs(limit: Int, excluding sending: Set<Int64>) throws -> [PushJob] {
        let now = clock.wallMillis
        let jobs = try store.read { db in
            try db.rows(OutboxSQL.dueJobs, [.integer(now), .integer(Int64(limit + sending.count))]) { try PushJob(row: $0) }
        }
        return Array(jobs.lazy.filter { !sending.contains($0.id) }.prefix(limit))
    }

    /// The earliest time (wall milliseconds) after now that a job or a window is due, if
    /// any: what is due already is being sent, or waits for a free place.
    public func nextDue() throws -> Int64? {
        let now = SQLiteValue.integer(clock.wallMillis)
        return try store.read { db in
            let job = try db.firstRow(OutboxSQL.nextJob, [now]) { try $0.optionalInt64("at") } ?? nil
            let window = try db.firstRow(OutboxSQL.nextWindowAfter, [now]) { try $0.optionalInt64("at") } ?? nil
            return [job, window].compactMap { $0 }.min()
        }
    }

    private func nextWindow() throws -> Int64? {
        try store.read { db in try db.firstRow(OutboxSQL.nextWindow, []) { try $0.optionalInt64("at") } ?? nil }
    }

    /// APNs took it, or refused it for good: it goes.
    public func finish(_ job: PushJob) throws {
        try store.write { db in _ = try db.statement(OutboxSQL.deleteJob).run(.integer(job.id)) }
    }

    /// Tries the job again at `at` (wall milliseconds).
    public func retry(_ job: PushJob, at: Int64) throws {
        try store.write { db in _ = try db.statement(OutboxSQL.retryJob).run(.integer(at), .integer(job.id)) }
    }

    /// `push.md#tokens-that-are-not-valid`: the job goes, and so does its token: the
    /// device's token of that kind is set to `null`, or the Live Activity registration is
    /// removed, unless the device registered another token meanwhile.
    public func tokenIsInvalid(_ job: PushJob) throws {
        let now = clock.wallMillis
        try store.write { db in
            _ = try db.statement(OutboxSQL.deleteJob).run(.integer(job.id))
            let account = SQLiteValue.text(job.accountID), device = SQLiteValue.text(job.deviceID)
            let token = SQLiteValue.text(job.token)
            switch job.tokenKind {
            case .apns: _ = try db.statement(OutboxSQL.clearAPNsToken).run(.integer(now), account, device, token)
            case .start: _ = try db.statement(OutboxSQL.clearStartToken).run(.integer(now), account, device, token)
            case .widget: _ = try db.statement(OutboxSQL.clearWidgetToken).run(.integer(now), account, device, token)
            case .activity:
                _ = try db.statement(OutboxSQL.removeRegistration).run(.text(job.taskID ?? ""), device, account, token)
            }
        }
    }

    /// How many jobs wait (tests, the log).
    public func jobCount() throws -> Int {
        try store.read { db in try db.count(OutboxSQL.jobCount) }
    }
}
