import JSON

/// One person (`rest-api.md#account`). Anonymous: no email, no password.
public struct Account: Sendable, Equatable {
    public let id: String
    public let createdAt: Int64
    public var liveActivities: Bool

    /// `{"id": ..., "created_at": ..., "settings": {"live_activities": ...}}`
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("settings")
        writer.beginObject()
        writer.key("live_activities")
        writer.bool(liveActivities)
        writer.endObject()
        writer.endObject()
    }
}
