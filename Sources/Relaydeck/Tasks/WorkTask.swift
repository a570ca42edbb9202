import JSON
import SQLite

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

    /// What the task counts for against a page's byte budget (`TaskFilter.byteBudget`): its
    /// texts' UTF-8 bytes and the rest of a Task object (IDs, times, names: about 400 bytes).
    public var pageBytes: Int {
        400 + title.utf8.count + description.utf8.count + (statusNote?.utf8.count ?? 0) + (host?.utf8.count ?? 0)
    }

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
        writeMembers(to: &writer)
        writer.endObject()
    }

    /// The members of the Task object, for an object that adds its own after them (an MCP
    /// tool's task with its ISO 8601 times).
    public func writeMembers(to writer: inout JSONWriter) {
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
    }
}

extension WorkTask {
    /// Decodes a row of `TaskSQL.columns`, by name.
    init(row: any StoreRow) throws {
        let status = try row.text("status")
        let priority = try row.text("priority")
        let source = try row.text("source")
        guard let status = Status(rawValue: status), let priority = Priority(rawValue: priority),
              let source = Source(rawValue: source) else {
            throw StoreError.failure("a task row has an unknown status, priority or source")
        }
        self.init(id: try row.text("id"), accountID: try row.text("account_id"), keyID: try row.text("key_id"),
                  title: try row.text("title"), description: try row.text("description"), status: status,
                  priority: priority, notify: try row.bool("notify"),
                  progress: try row.optionalInt64("progress").map { Int($0) },
                  statusNote: try row.optionalText("status_note"), source: source,
                  createdAt: try row.int64("created_at"), updatedAt: try row.int64("updated_at"),
                  completedAt: try row.optionalInt64("completed_at"), seenAt: try row.optionalInt64("seen_at"),
                  host: try row.optionalText("host"))
    }
}
