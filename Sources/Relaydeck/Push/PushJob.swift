import SQLite

/// One push in the outbox, its payload built: what the dispatcher hands to APNs. The token
/// is a secret (`overview.md`): never logged.
public struct PushJob: Sendable, Equatable {
    /// Which token of the device the push goes to: what to remove when APNs refuses it
    /// (`push.md#tokens-that-are-not-valid`).
    public enum TokenKind: String, Sendable, CaseIterable {
        /// `apns_token`: notifications.
        case apns
        /// `push_to_start_token`: Live Activity `start`.
        case start
        /// `widget_push_token`: widget reloads.
        case widget
        /// The update token of a Live Activity registration (`task_id`, `device_id`).
        case activity
    }

    public var id: Int64
    public var accountID: String
    public var deviceID: String
    public var tokenKind: TokenKind
    public var taskID: String?
    public var environment: Device.Environment
    public var token: String
    /// `apns-push-type`.
    public var pushType: String
    public var topic: String
    public var priority: Int
    public var collapseID: String?
    /// `apns-expiration`, Unix seconds.
    public var expiration: Int64?
    public var payload: [UInt8]
    /// Sends tried so far that ended in a failure worth trying again.
    public var attempts: Int

    public init(id: Int64 = 0, accountID: String, deviceID: String, tokenKind: TokenKind, taskID: String? = nil,
                environment: Device.Environment, token: String, pushType: String, topic: String, priority: Int,
                collapseID: String? = nil, expiration: Int64? = nil, payload: [UInt8], attempts: Int = 0) {
        self.id = id
        self.accountID = accountID
        self.deviceID = deviceID
        self.tokenKind = tokenKind
        self.taskID = taskID
        self.environment = environment
        self.token = token
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.payload = payload
        self.attempts = attempts
    }

    init(row: any StoreRow) throws {
        guard let kind = TokenKind(rawValue: try row.text("token_kind")),
              let environment = Device.Environment(rawValue: try row.text("environment")) else {
            throw StoreError.failure("a push job has an unknown token kind or environment")
        }
        self.init(id: try row.int64("id"), accountID: try row.text("account_id"), deviceID: try row.text("device_id"),
                  tokenKind: kind, taskID: try row.optionalText("task_id"), environment: environment,
                  token: try row.text("token"), pushType: try row.text("push_type"), topic: try row.text("topic"),
                  priority: Int(try row.int64("priority")), collapseID: try row.optionalText("collapse_id"),
                  expiration: try row.optionalInt64("expiration"), payload: try row.blob("payload"),
                  attempts: Int(try row.int64("attempts")))
    }

    /// Writes the job, due at `dueAt` (wall milliseconds).
    func insert(_ db: any StoreSession, dueAt: Int64, now: Int64) async throws {
        try await db.run(OutboxSQL.insertJob,
            .text(accountID), .text(deviceID), .text(tokenKind.rawValue), taskID.map { .text($0) } ?? .null,
            .text(environment.rawValue), .text(token), .text(pushType), .text(topic), .integer(Int64(priority)),
            collapseID.map { .text($0) } ?? .null, expiration.map { .integer($0) } ?? .null, .blob(payload),
            .integer(dueAt), .integer(now))
    }
}
