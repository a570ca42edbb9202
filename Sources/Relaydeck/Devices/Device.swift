import JSON

/// One iPhone, iPad or Apple Watch of an account and its push tokens (`rest-api.md#device`).
/// The client makes the ID; the tokens are what the pushes of `push.md` are sent to.
public struct Device: Sendable, Equatable {
    public enum Platform: String, CaseIterable, Sendable {
        case ios, ipados, watchos
    }

    /// Which APNs server the tokens belong to (a build from Xcode has sandbox tokens).
    public enum Environment: String, CaseIterable, Sendable {
        case production, sandbox
    }

    public let id: String
    public let accountID: String
    public var platform: Platform
    public var model: String
    public var osVersion: String
    public var appVersion: String
    public var environment: Environment
    public var apnsToken: String?
    public var pushToStartToken: String?
    public var widgetPushToken: String?
    public var updatedAt: Int64

    /// The Device object: the stored fields, `id` and `updated_at`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("platform")
        writer.string(platform.rawValue)
        writer.key("model")
        writer.string(model)
        writer.key("os_version")
        writer.string(osVersion)
        writer.key("app_version")
        writer.string(appVersion)
        writer.key("apns_environment")
        writer.string(environment.rawValue)
        writer.key("apns_token")
        writer.string(apnsToken)
        writer.key("push_to_start_token")
        writer.string(pushToStartToken)
        writer.key("widget_push_token")
        writer.string(widgetPushToken)
        writer.key("updated_at")
        writer.timestamp(millis: updatedAt)
        writer.endObject()
    }
}

extension Device {
    /// Decodes a row of `Devices.SQL.columns`, by name, from either store (the push outbox
    /// reads its devices from SQLite's `Row`).
    init(row: some StoreRow) throws {
        id = try row.text("id")
        accountID = try row.text("account_id")
        let platformText = try row.text("platform")
        let environmentText = try row.text("apns_environment")
        guard let platform = Platform(rawValue: platformText), let environment = Environment(rawValue: environmentText) else {
            // The table's CHECK constraints keep both to the contract's values.
            throw StoreError.failure("a devices row has a platform or environment outside the contract")
        }
        self.platform = platform
        self.environment = environment
        model = try row.text("model")
        osVersion = try row.text("os_version")
        appVersion = try row.text("app_version")
        apnsToken = try row.optionalText("apns_token")
        pushToStartToken = try row.optionalText("push_to_start_token")
        widgetPushToken = try row.optionalText("widget_push_token")
        updatedAt = try row.int64("updated_at")
    }
}
