import Clock
import SQLite

/// Decides which Web Push messages a committed change causes (issue 21) and writes them to the
/// Web Push outbox in the change's own transaction, one job per subscription of the account.
///
/// It follows `push.md`'s "who gets which notification" for what is visible there: a task's
/// notification (`notify: true`, not a progress tick, from an agent), `notify_user`, a new
/// question. The silent pushes of APNs have no like on the web: a browser must show something
/// for every push (Safari ends a subscription whose pushes show nothing; Chrome shows a notice
/// of its own), so a silent task update sends nothing. The one exception is a question's status
/// change, which must take the question's notification (and its answer buttons) away: it goes
/// as `question.updated` under the same tag and topic, with texts that say what happened, and
/// the service worker shows it quietly in the question's place. Loop thread only.
public final class WebPushPlanner: ChangePlanner {
    /// How long a message that is not a question's stays of use: the push service keeps it
    /// that long for an offline browser (`TTL`), and a failed send is retried until then.
    public static let lifetimeMillis: Int64 = 24 * 3_600_000

    let clock: any Clock
    /// Called after something was planned: the dispatcher drains once the caller's
    /// transaction committed (a rollback leaves nothing to find).
    public var onPlanned: (() -> Void)?

    public init(clock: any Clock) {
        self.clock = clock
    }

    public func plan(_ changes: [Change], in db: any StoreSession) async throws {
        var planned = false
        for change in changes {
            planned = try await plan(change, db) || planned
        }
        if planned { onPlanned?() }
    }

    /// `notify_user`: a notification to each subscription of the account; how many.
    public func message(_ db: any StoreSession, accountID: String, keyID: String, title: String, body: String,
                        taskID: String?) async throws -> Int {
        let subscriptions = try await self.subscriptions(db, accountID)
        guard !subscriptions.isEmpty else { return 0 }
        var urgent = false
        if let taskID, let task = try await task(db, taskID) { urgent = task.priority == .urgent }
        let payload = WebPushPayload(
            event: "message", title: WebPushPayload.title(try await keyLabel(db, keyID), title), body: body, tag: nil,
            url: taskID.map(WebPushPayload.url(task:)) ?? WebPushPayload.url(key: keyID), keyID: keyID, taskID: taskID)
        try await enqueue(db, accountID, subscriptions, .message, urgent ? .high : .normal, topic: nil, payload)
        onPlanned?()
        return subscriptions.count
    }

    /// `POST /v1/web-push/subscriptions/{id}/test`: one notification to that subscription.
    public func test(_ store: any SessionStore, accountID: String, subscriptionID: String) async throws {
        try await store.writing { db in
            guard try await db.exists(WebPushSubscriptions.SQL.exists, .text(accountID), .text(subscriptionID)) else {
                throw WebPushSubscriptions.notFound
            }
            let payload = WebPushPayload(event: "test", title: "Relaydeck",
                                         body: "Notifications from this server reach this browser.",
                                         tag: "relaydeck-test", url: WebPushPayload.settingsURL)
            try await enqueue(db, accountID, [subscriptionID], .test, .normal, topic: nil, payload)
        }
        onPlanned?()
    }

    // MARK: Which change causes what

    private func plan(_ change: Change, _ db: any StoreSession) async throws -> Bool {
        let accountID = change.accountID
        let fromAgent: Bool
        if case .key = change.actor { fromAgent = true } else { fromAgent = false }
        switch change.event {
        case .taskCreated(let task):
            guard fromAgent && task.notify else { return false }
            return try await taskNotification(db, task, event: "task.created", what: "New task")
        case .taskUpdated(let task):
            let before = change.previous ?? task
            guard fromAgent && task.notify && !PushPlanner.isTick(before, task) else { return false }
            return try await taskNotification(db, task, event: "task.updated", what: PushPlanner.subtitle(before, task))
        case .taskDeleted(let taskID, _):
            guard fromAgent, let task = try await task(db, taskID), task.notify else { return false }
            return try await taskNotification(db, task, event: "task.deleted", what: "Task deleted")
        case .questionCreated(let question):
            return try await questionNotification(db, question)
        case .questionUpdated(let question):
            return try await questionNotification(db, question)
        case .accountDeleted:
            try await db.run(WebPushOutbox.SQL.deleteJobsOfAccount, .text(accountID))
            return false
        case .keyCreated, .keyUpdated, .keyDeleted, .inboxUpdated:
            return false
        }
    }

    private func taskNotification(_ db: any StoreSession, _ task: WorkTask, event: String, what: String) async throws -> Bool {
        let subscriptions = try await self.subscriptions(db, task.accountID)
        guard !subscriptions.isEmpty else { return false }
        let payload = WebPushPayload(event: event, title: WebPushPayload.title(try await keyLabel(db, task.keyID), what),
                                     body: task.title, tag: task.id, url: WebPushPayload.url(task: task.id),
                                     keyID: task.keyID, taskID: task.id)
        try await enqueue(db, task.accountID, subscriptions, .task, task.priority == .urgent ? .high : .normal,
                    topic: task.id, payload)
        return true
    }

    /// A new question (`question.created`, high urgency, kept until it expires), or the end of
    /// its wait (`question.updated`, low urgency, same tag and topic: a browser that was
    /// offline gets only the newer of the two).
    private func questionNotification(_ db: any StoreSession, _ question: Question) async throws -> Bool {
        let subscriptions = try await self.subscriptions(db, question.accountID)
        guard !subscriptions.isEmpty else { return false }
        let label = try await keyLabel(db, question.keyID)
        let now = clock.wallMillis
        let payload: WebPushPayload
        let urgency: WebPushJob.Urgency
        let expiresAt: Int64
        switch question.status {
        case .pending:
            payload = WebPushPayload(event: "question.created", title: WebPushPayload.title(label, "Question"),
                                     body: question.prompt, tag: question.id, url: WebPushPayload.url(question: question.id),
                                     keyID: question.keyID, taskID: question.taskID, questionID: question.id,
                                     kind: question.kind, options: question.options, expiresAt: question.expiresAt)
            urgency = .high
            expiresAt = min(question.expiresAt, now + Self.lifetimeMillis)
        case .answered, .expired, .cancelled:
            let what = question.status == .answered ? "Answered" : question.status == .expired ? "Expired" : "Cancelled"
            payload = WebPushPayload(event: "question.updated", title: WebPushPayload.title(label, what),
                                     body: question.prompt, tag: question.id, url: WebPushPayload.url(question: question.id),
                                     keyID: question.keyID, taskID: question.taskID, questionID: question.id,
                                     kind: question.kind, expiresAt: question.expiresAt)
            urgency = .low
            expiresAt = now + Self.lifetimeMillis
        }
        try await enqueue(db, question.accountID, subscriptions, .question, urgency, topic: question.id, payload,
                    expiresAt: expiresAt)
        return true
    }

    private func enqueue(_ db: any StoreSession, _ accountID: String, _ subscriptions: [String], _ kind: WebPushJob.Kind,
                         _ urgency: WebPushJob.Urgency, topic: String?, _ payload: WebPushPayload,
                         expiresAt: Int64? = nil) async throws {
        let now = clock.wallMillis
        let bytes = payload.bytes
        for subscription in subscriptions {
            try await WebPushJob(accountID: accountID, subscriptionID: subscription, kind: kind, urgency: urgency, topic: topic,
                           payload: bytes, expiresAt: expiresAt ?? now + Self.lifetimeMillis, createdAt: now).insert(db)
        }
    }

    // MARK: Reads

    func subscriptions(_ db: any StoreSession, _ accountID: String) async throws -> [String] {
        try await db.rows(WebPushSubscriptions.SQL.ids, [.text(accountID)]) { try $0.text("id") }
    }

    func task(_ db: any StoreSession, _ taskID: String) async throws -> WorkTask? {
        try await db.firstRow(OutboxSQL.task, [.text(taskID)]) { try WorkTask(row: $0) }
    }

    func keyLabel(_ db: any StoreSession, _ keyID: String) async throws -> String {
        try await db.firstRow(OutboxSQL.keyLabel, [.text(keyID)]) { try $0.text("label") } ?? ""
    }
}
