import Clock
import JSON
import SQLite

/// Decides which pushes a committed change causes (`push.md`) and writes them to the outbox
/// in the change's own transaction: a notification or a Live Activity `start` or `end` as a
/// job with its payload, a Live Activity `update` or a widget reload as a window
/// (`push_windows`) whose payload is built when it is sent, so it carries the newest state.
/// Installed on the hub (`EventHub.planners`) only when APNs is set. Loop thread only.
public final class PushPlanner: ChangePlanner {
    /// At most one Live Activity `update` per task in this time (`push.md#live-activity`).
    public static let activityWindowMillis: Int64 = 5_000
    /// At most one widget reload per device in this time (`push.md#widget-reload`).
    public static let widgetWindowMillis: Int64 = 15_000

    public let settings: PushSettings
    let clock: any Clock
    /// Called after something was planned: the dispatcher drains once the caller's
    /// transaction committed (it runs later on the loop; a rollback leaves nothing to find).
    public var onPlanned: (() -> Void)?

    public init(settings: PushSettings, clock: any Clock) {
        self.settings = settings
        self.clock = clock
    }

    public func plan(_ changes: [Change], in db: any StoreSession) async throws {
        planning = true
        defer {
            planning = false
            accountDevices = nil
        }
        let now = clock.wallMillis
        // Windows that ended with nothing waiting say nothing any more.
        try await db.run(OutboxSQL.pruneWindows, .integer(now), .integer(Self.widgetWindowMillis))
        var planned = false
        for change in changes {
            planned = try await plan(change, db, now: now) || planned
        }
        if planned { onPlanned?() }
    }

    /// `notify_user` (`mcp.md#notify-the-person`): a visible notification to each device of
    /// the account with an `apns_token`. Returns how many devices have one. Runs inside the
    /// caller's write.
    public func message(_ db: any StoreSession, accountID: String, keyID: String, title: String, body: String,
                        taskID: String?) async throws -> Int {
        let devices = try await self.devices(db, accountID).filter { $0.apnsToken != nil }
        guard !devices.isEmpty else { return 0 }
        let label = try await keyLabel(db, keyID)
        var urgent = false
        if let taskID, let task = try await task(db, taskID) { urgent = task.priority == .urgent }
        let payload = PushPayloads.alert(title: label, subtitle: title, body: body, threadID: keyID, category: "MESSAGE",
                                         timeSensitive: urgent) { writer in
            writer.key("event")
            writer.string("message")
            writer.key("key_id")
            writer.string(keyID)
            if let taskID {
                writer.key("task_id")
                writer.string(taskID)
            }
        }
        let now = clock.wallMillis
        for device in devices {
            try await notification(db, device, visible: true, payload: payload, collapseID: nil, now: now)
        }
        onPlanned?()
        return devices.count
    }

    // MARK: Which change causes what

    private func plan(_ change: Change, _ db: any StoreSession, now: Int64) async throws -> Bool {
        let accountID = change.accountID
        let fromAgent: Bool
        if case .key = change.actor { fromAgent = true } else { fromAgent = false }
        switch change.event {
        case .taskCreated(let task):
            try await taskNotification(db, task, event: "task.created", subtitle: "New task",
                                 visible: fromAgent && task.notify, now: now)
            if fromAgent && task.status == .inProgress { try await startActivities(db, task, now: now) }
            try await reloadWidgets(db, accountID, now: now)
        case .taskUpdated(let task):
            let before = change.previous ?? task
            let tick = Self.isTick(before, task)
            try await taskNotification(db, task, event: "task.updated", subtitle: Self.subtitle(before, task),
                                 visible: fromAgent && task.notify && !tick, now: now)
            try await activities(db, before, task, fromAgent: fromAgent, now: now)
            try await reloadWidgets(db, accountID, now: now)
        case .taskDeleted(let taskID, let keyID):
            // The server's own deletions (retention, the cap of closed tasks) are no change of
            // the table's: they come in batches, and the widgets and the stream tell of them.
            let notifies = change.actor != .server
            if let task = try await task(db, taskID) {
                if notifies {
                    try await taskNotification(db, task, event: "task.deleted", subtitle: "Task deleted",
                                         visible: fromAgent && task.notify, now: now)
                }
                try await endActivities(db, task, now: now)
            } else if notifies {
                let payload = PushPayloads.silent(PushPayloads.taskMembers(event: "task.deleted", taskID: taskID, keyID: keyID))
                for device in try await devices(db, accountID) {
                    try await notification(db, device, visible: false, payload: payload, collapseID: nil, now: now)
                }
            }
            try await reloadWidgets(db, accountID, now: now)
        case .questionCreated(let question):
            try await questionCreated(db, question, now: now)
            if let taskID = question.taskID { try await updateActivities(db, accountID, taskID, now: now) }
            try await reloadWidgets(db, accountID, now: now)
        case .questionUpdated(let question):
            let payload = PushPayloads.silent { writer in
                writer.key("event")
                writer.string("question.updated")
                writer.key("question_id")
                writer.string(question.id)
                writer.key("key_id")
                writer.string(question.keyID)
            }
            for device in try await devices(db, accountID) {
                try await notification(db, device, visible: false, payload: payload, collapseID: question.id, now: now)
            }
            if let taskID = question.taskID { try await updateActivities(db, accountID, taskID, now: now) }
            try await reloadWidgets(db, accountID, now: now)
        case .keyDeleted(let keyID):
            // `push.md#live-activity`: "the task or its key is deleted" ends the activity.
            let taskIDs = try await db.rows(OutboxSQL.tasksOfKeyWithActivities, [.text(keyID)]) { try $0.text("task_id") }
            for taskID in taskIDs {
                if let task = try await task(db, taskID) { try await endActivities(db, task, now: now) }
            }
            try await reloadWidgets(db, accountID, now: now)
        case .accountDeleted:
            // Nothing more goes to the devices of a deleted account.
            try await db.run(OutboxSQL.deleteJobsOfAccount, .text(accountID))
            try await db.run(OutboxSQL.deleteWindowsOfAccount, .text(accountID))
            return false
        case .keyCreated, .keyUpdated, .inboxUpdated:
            return false
        }
        return true
    }

    /// `push.md#who-gets-which-notification`: a change of only `progress` or `status_note`
    /// (or of `seen_at`, which the agent's read sets) is a progress tick.
    static func isTick(_ before: WorkTask, _ after: WorkTask) -> Bool {
        var comparable = after
        comparable.progress = before.progress
        comparable.statusNote = before.statusNote
        comparable.seenAt = before.seenAt
        comparable.updatedAt = before.updatedAt
        return comparable == before
    }

    /// `push.md#visible`: what happened, from the status.
    static func subtitle(_ before: WorkTask, _ after: WorkTask) -> String {
        guard before.status != after.status else { return "Task updated" }
        switch after.status {
        case .inProgress: return "Task started"
        case .done: return "Task done"
        case .cancelled: return "Task cancelled"
        case .todo: return "Task updated"
        }
    }

    // MARK: Notifications

    private func taskNotification(_ db: any StoreSession, _ task: WorkTask, event: String, subtitle: String, visible: Bool,
                                  now: Int64) async throws {
        let devices = try await self.devices(db, task.accountID).filter { $0.apnsToken != nil }
        guard !devices.isEmpty else { return }
        let members = PushPayloads.taskMembers(event: event, taskID: task.id, keyID: task.keyID)
        let payload = visible
            ? PushPayloads.alert(title: try await keyLabel(db, task.keyID), subtitle: subtitle, body: task.title,
                                 threadID: task.keyID, category: "TASK", timeSensitive: task.priority == .urgent, members)
            : PushPayloads.silent(members)
        for device in devices {
            try await notification(db, device, visible: visible, payload: payload, collapseID: visible ? task.id : nil, now: now)
        }
    }

    private func questionCreated(_ db: any StoreSession, _ question: Question, now: Int64) async throws {
        let devices = try await self.devices(db, question.accountID).filter { $0.apnsToken != nil }
        guard !devices.isEmpty else { return }
        let payload = PushPayloads.alert(
            title: try await keyLabel(db, question.keyID), subtitle: "Question", body: question.prompt, threadID: question.keyID,
            category: "QUESTION_" + question.kind.rawValue.uppercased(), timeSensitive: true, mutableContent: true
        ) { writer in
            writer.key("event")
            writer.string("question.created")
            writer.key("question_id")
            writer.string(question.id)
            writer.key("kind")
            writer.string(question.kind.rawValue)
            writer.key("options")
            writer.beginArray()
            for option in question.options { writer.string(option) }
            writer.endArray()
            writer.key("task_id")
            writer.string(question.taskID)
            writer.key("key_id")
            writer.string(question.keyID)
        }
        for device in devices {
            try await notification(db, device, visible: true, payload: payload, collapseID: question.id,
                             expiration: question.expiresAt / 1000, now: now)
        }
    }

    /// One notification to the device's `apns_token`: `alert` with priority 10, or
    /// `background` with priority 5 (APNs refuses a background push with 10).
    private func notification(_ db: any StoreSession, _ device: Device, visible: Bool, payload: [UInt8], collapseID: String?,
                              expiration: Int64? = nil, now: Int64) async throws {
        guard let token = device.apnsToken, let topic = settings.topic(device.platform) else { return }
        let job = PushJob(accountID: device.accountID, deviceID: device.id, tokenKind: .apns, environment: device.environment,
                          token: token, pushType: visible ? "alert" : "background", topic: topic,
                          priority: visible ? 10 : 5, collapseID: collapseID, expiration: expiration, payload: payload)
        try await job.insert(db, dueAt: now, now: now)
    }

    // MARK: Live Activities

    private func activities(_ db: any StoreSession, _ before: WorkTask, _ after: WorkTask, fromAgent: Bool, now: Int64) async throws {
        if after.status.isClosed && !before.status.isClosed {
            try await endActivities(db, after, now: now)
            return
        }
        if fromAgent && after.status == .inProgress && before.status != .inProgress {
            try await startActivities(db, after, now: now)
        }
        let shown = before.title != after.title || before.status != after.status || before.progress != after.progress
            || before.statusNote != after.statusNote
        if shown { try await updateActivities(db, after.accountID, after.id, now: now) }
    }

    private func liveActivitiesOn(_ db: any StoreSession, _ accountID: String) async throws -> Bool {
        try await db.firstRow(OutboxSQL.liveActivitiesSetting, [.text(accountID)]) { try $0.bool("live_activities") } ?? false
    }

    /// `start` to each device with a `push_to_start_token` and no activity for the task.
    private func startActivities(_ db: any StoreSession, _ task: WorkTask, now: Int64) async throws {
        guard try await liveActivitiesOn(db, task.accountID) else { return }
        let devices = try await self.devices(db, task.accountID).filter { $0.pushToStartToken != nil }
        guard !devices.isEmpty else { return }
        let payload = PushPayloads.liveActivity(.start, try await state(db, task), nowMillis: now)
        for device in devices {
            guard let token = device.pushToStartToken, let topic = settings.topic(device.platform, .liveActivity),
                  try await !db.exists(OutboxSQL.registered, .text(task.id), .text(device.id), .text(task.accountID)) else { continue }
            let job = PushJob(accountID: task.accountID, deviceID: device.id, tokenKind: .start, taskID: task.id,
                              environment: device.environment, token: token, pushType: "liveactivity", topic: topic,
                              priority: 10, payload: payload)
            try await job.insert(db, dueAt: now, now: now)
        }
    }

    /// An `update` for the task's activities: its window, sent at once or when the last
    /// `update`'s 5 seconds end.
    private func updateActivities(_ db: any StoreSession, _ accountID: String, _ taskID: String, now: Int64) async throws {
        guard try await db.exists(OutboxSQL.hasRegistrations, .text(taskID), .text(accountID)),
              try await liveActivitiesOn(db, accountID) else { return }
        try await db.run(OutboxSQL.markWindow, .text("activity"), .text(accountID), .text(taskID), .integer(now),
                                                   .integer(Self.activityWindowMillis))
    }

    /// `end` with the final state to each registered activity; the registrations go
    /// (`rest-api.md#live-activities`), and so does an `update` still waiting.
    private func endActivities(_ db: any StoreSession, _ task: WorkTask, now: Int64) async throws {
        let registrations = try await self.registrations(db, task.accountID, task.id)
        guard !registrations.isEmpty else { return }
        if try await liveActivitiesOn(db, task.accountID) {
            let payload = PushPayloads.liveActivity(.end, try await state(db, task), nowMillis: now)
            for registration in registrations {
                try await activityJob(registration, task, payload).insert(db, dueAt: now, now: now)
            }
        }
        try await db.run(OutboxSQL.deleteRegistrations, .text(task.id), .text(task.accountID))
        try await db.run(OutboxSQL.deleteWindow, .text("activity"), .text(task.accountID), .text(task.id))
    }

    func activityJob(_ registration: Registration, _ task: WorkTask, _ payload: [UInt8]) -> PushJob {
        PushJob(accountID: task.accountID, deviceID: registration.deviceID, tokenKind: .activity, taskID: task.id,
                environment: registration.environment, token: registration.token, pushType: "liveactivity",
                topic: registration.topic, priority: 10, payload: payload)
    }

    struct Registration {
        let deviceID: String
        let token: String
        let environment: Device.Environment
        let topic: String
    }

    func registrations(_ db: any StoreSession, _ accountID: String, _ taskID: String) async throws -> [Registration] {
        let rows = try await db.rows(OutboxSQL.registrations, [.text(taskID), .text(accountID)]) { row in
            (deviceID: try row.text("device_id"), token: try row.text("push_token"),
             platform: Device.Platform(rawValue: try row.text("platform")),
             environment: Device.Environment(rawValue: try row.text("apns_environment")))
        }
        return rows.compactMap { row in
            guard let platform = row.platform, let environment = row.environment,
                  let topic = settings.topic(platform, .liveActivity) else { return nil }
            return Registration(deviceID: row.deviceID, token: row.token, environment: environment, topic: topic)
        }
    }

    func state(_ db: any StoreSession, _ task: WorkTask) async throws -> LiveActivityState {
        let question = try await db.firstRow(OutboxSQL.oldestPendingQuestion, [.text(task.id)]) { try Question(row: $0) }
        return LiveActivityState(task: task, keyLabel: try await keyLabel(db, task.keyID), question: question)
    }

    // MARK: Widgets

    /// A reload for each device with a `widget_push_token`: its window, sent at once or when
    /// the last reload's 15 seconds end.
    private func reloadWidgets(_ db: any StoreSession, _ accountID: String, now: Int64) async throws {
        for device in try await devices(db, accountID) where device.widgetPushToken != nil {
            try await db.run(OutboxSQL.markWindow, .text("widget"), .text(accountID), .text(device.id), .integer(now),
                                                       .integer(Self.widgetWindowMillis))
        }
    }

    // MARK: Reads

    func devices(_ db: any StoreSession, _ accountID: String) async throws -> [Device] {
        if let accountDevices, accountDevices.accountID == accountID { return accountDevices.devices }
        let devices = try await db.rows(OutboxSQL.devices, [.text(accountID)]) { try Device(row: $0) }
        if planning { accountDevices = (accountID, devices) }
        return devices
    }

    /// True inside `plan`, whose changes read the account's devices once: a task's change
    /// reads them for its notification and again for its widgets, and with 20 devices each
    /// read was 360,000 instructions, a tenth of such a write (`bench/cost.py --callgrind
    /// push-devices`). Planning writes no device, so the rows read stay true until it returns.
    private var planning = false
    private var accountDevices: (accountID: String, devices: [Device])?

    func task(_ db: any StoreSession, _ taskID: String) async throws -> WorkTask? {
        try await db.firstRow(OutboxSQL.task, [.text(taskID)]) { try WorkTask(row: $0) }
    }

    func keyLabel(_ db: any StoreSession, _ keyID: String) async throws -> String {
        try await db.firstRow(OutboxSQL.keyLabel, [.text(keyID)]) { try $0.text("label") } ?? ""
    }
}
