import JSON

/// One unit of work of a key: the contract's Task (`rest-api.md#task`), named so that it
/// does not shadow Swift's own `Task`.
public struct WorkTask: Sendable, Equatable {
    public enum Status: String, CaseIterable, Sendable {
        case todo
        case inProgress = "in_progress"
        case done
        case cancelled

        /// `done` and `cancelled`: closed tasks count against their own cap and expire.
        public var isClosed: Bool { self == .done || self == .cancelled }
    }

    public enum Priority: String, CaseIterable, Sendable {
        case low, medium, high, urgent
    }

    /// `agent` when an API key made the task, `app` when the account did.
    public enum Source: String, CaseIterable, Sendable {
        case agent, app
    }

    public let id: String
    public let accountID: String
    public let keyID: String
    public var title: String
    public var description: String
    public var status: Status
    public var priority: Priority
    public var notify: Bool
    public var progress: Int?
    public var statusNote: String?
    public let source: Source
    public let createdAt: Int64
    public var updatedAt: Int64
    public var completedAt: Int64?
    public var seenAt: Int64?
    public let host: String?

    public init(id: String, accountID: String, keyID: String, title: String, description: String, status: Status,
                priority: Priority, notify: Bool, progress: Int?, statusNote: String?, source: Source, createdAt: Int64,
                updatedAt: Int64, completedAt: Int64?, seenAt: Int64?, host: String?) {
        self.id = id
        self.accountID = accountID
        self.keyID = keyID
        self.title = title
        self.description = description
        self.status = status
        self.priority = priority
        self.notify = notify
        self.progress = progress
        self.statusNote = statusNote
        self.source = source
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.completedAt = completedAt
        self.seenAt = seenAt
        self.host = host
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("key_id")
        writer.string(keyID)
        writer.key("title")
        writer.string(title)
        writer.key("description")
        writer.string(description)
        writer.key("status")
        writer.string(status.rawValue)
        writer.key("priority")
        writer.string(priority.rawValue)
        writer.key("notify")
        writer.bool(notify)
        writer.key("progress")
        if let progress { writer.int(progress) } else { writer.null() }
        writer.key("status_note")
        writer.string(statusNote)
        writer.key("source")
        writer.string(source.rawValue)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("updated_at")
        writer.timestamp(millis: updatedAt)
        writer.key("completed_at")
        writer.timestamp(millis: completedAt)
        writer.key("seen_at")
        writer.timestamp(millis: seenAt)
        writer.key("host")
        writer.string(host)
        writer.endObject()
    }
}
