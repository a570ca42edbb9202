/// Which APNs service a device token belongs to: a device's `apns_environment`.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox
}

/// One push as APNs takes it: the device token, the headers of `push.md`, and the JSON payload.
/// The domain builds it; the client sends it and knows nothing of what it means.
public struct APNsRequest: Sendable, Equatable {
    public var environment: APNsEnvironment
    /// The token as the device registered it (hexadecimal). A secret: never logged.
    public var deviceToken: String
    /// `apns-push-type`: `alert`, `background`, `liveactivity` or `widgets`.
    public var pushType: String
    /// `apns-topic`, with its `.push-type.liveactivity` or `.push-type.widgets` suffix.
    public var topic: String
    /// `apns-priority`: 10, or 5 for a background push.
    public var priority: Int
    /// `apns-collapse-id`, when the push has one.
    public var collapseID: String?
    /// `apns-expiration` in UNIX seconds, when the push has one.
    public var expiration: Int64?
    /// The payload, JSON.
    public var payload: [UInt8]

    public init(
        environment: APNsEnvironment, deviceToken: String, pushType: String, topic: String,
        priority: Int, collapseID: String? = nil, expiration: Int64? = nil, payload: [UInt8]
    ) {
        self.environment = environment
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.payload = payload
    }
}

/// How one push ended, after the client's own retries.
public enum APNsResult: Sendable, Equatable {
    /// APNs took it (`200`).
    case delivered
    /// APNs answered with an error status that retrying did not cure: `reason` is the
    /// `reason` of its JSON body, when it had one.
    case refused(status: Int, reason: String?)
    /// No answer: the connection could not be made, or broke, until the retries ran out.
    case unreachable(String)

    /// `push.md#tokens-that-are-not-valid`: the token is gone for good.
    public var tokenIsInvalid: Bool {
        switch self {
        case .refused(410, _), .refused(400, "BadDeviceToken"): true
        default: false
        }
    }
}

/// What sends pushes: the APNs client, or a test's recorder. Loop thread only.
public protocol APNsSending: AnyObject {
    /// Sends one push; `completion` runs exactly once, on the loop thread.
    func send(_ request: APNsRequest, completion: @escaping (APNsResult) -> Void)
}
