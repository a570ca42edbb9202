import JSON

/// One browser's push subscription of an account (issue 21): what `PushSubscription.toJSON()`
/// gave the console, under an ID the console made. The keys are what a message is encrypted
/// with; they are stored and never given back.
public struct WebPushSubscription: Sendable, Equatable {
    public let id: String
    public let accountID: String
    public var endpoint: String
    /// The browser's P-256 key, an uncompressed point (65 bytes).
    public var p256dh: [UInt8]
    /// The browser's authentication secret (16 bytes).
    public var auth: [UInt8]
    public var label: String?
    /// The browser's `expirationTime` (milliseconds since the epoch), when it gave one.
    public var expirationTime: Int64?
    public var createdAt: Int64
    public var updatedAt: Int64

    /// The Subscription object: `id`, `endpoint`, `label`, `expiration_time`, `created_at`;
    /// never the keys.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("endpoint")
        writer.string(endpoint)
        writer.key("label")
        writer.string(label)
        writer.key("expiration_time")
        writer.timestamp(millis: expirationTime)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.endObject()
    }
}

extension WebPushSubscription {
    /// Decodes a row of `WebPushSubscriptions.SQL.columns`, by name, from either store (the
    /// Web Push outbox reads it from SQLite's `Row`).
    init(row: some StoreRow) throws {
        id = try row.text("id")
        accountID = try row.text("account_id")
        endpoint = try row.text("endpoint")
        p256dh = try row.blob("p256dh")
        auth = try row.blob("auth")
        label = try row.optionalText("label")
        expirationTime = try row.optionalInt64("expiration_time")
        createdAt = try row.int64("created_at")
        updatedAt = try row.int64("updated_at")
    }
}

/// The shape of a subscription ID, which the console makes: `wps_` and 1 to 64 of
/// `[A-Za-z0-9_-]`.
public enum WebPushSubscriptionID {
    public static let prefix = "wps_"
    public static let problem = "Must be wps_ plus 1 to 64 letters, digits, _ or -."

    public static func isWellFormed(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.starts(with: prefix.utf8) else { return false }
        let rest = utf8.dropFirst(prefix.utf8.count)
        return (1...64).contains(rest.count) && rest.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D
        }
    }
}
