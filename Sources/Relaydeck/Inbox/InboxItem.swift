import JSON
import SQLite

/// One thing the person or another agent sent to a key (`inbox.md#inbox-item`).
public struct InboxItem: Sendable, Equatable {
    public enum Kind: String, CaseIterable, Sendable {
        case taskAssigned = "task_assigned"
        case taskChanged = "task_changed"
        case taskDeleted = "task_deleted"
        case answer
        case message
    }

    /// `{"type": "person"}` or `{"type": "agent", "key_id": ..., "label": ...}`.
    public enum Sender: Sendable, Equatable {
        case person
        case agent(keyID: String, label: String)
    }

    public let id: String
    public let accountID: String
    public let keyID: String
    public let kind: Kind
    public let from: Sender
    public let taskID: String?
    public let questionID: String?
    public let text: String
    public let createdAt: Int64
    public var readAt: Int64?

    public init(id: String, accountID: String, keyID: String, kind: Kind, from: Sender, taskID: String?,
                questionID: String?, text: String, createdAt: Int64, readAt: Int64?) {
        self.id = id
        self.accountID = accountID
        self.keyID = keyID
        self.kind = kind
        self.from = from
        self.taskID = taskID
        self.questionID = questionID
        self.text = text
        self.createdAt = createdAt
        self.readAt = readAt
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("kind")
        writer.string(kind.rawValue)
        writer.key("from")
        writer.beginObject()
        switch from {
        case .person:
            writer.key("type")
            writer.string("person")
        case .agent(let keyID, let label):
            writer.key("type")
            writer.string("agent")
            writer.key("key_id")
            writer.string(keyID)
            writer.key("label")
            writer.string(label)
        }
        writer.endObject()
        writer.key("task_id")
        writer.string(taskID)
        writer.key("question_id")
        writer.string(questionID)
        writer.key("text")
        writer.string(text)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("read_at")
        writer.timestamp(millis: readAt)
        writer.endObject()
    }

    /// A page of the inbox, `{"items": [Item], "unread": 2}`, as `GET /v1/inbox` and
    /// `check_inbox` answer it.
    public static func writePage(_ items: [InboxItem], unread: Int, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in items { item.write(to: &writer) }
        writer.endArray()
        writer.key("unread")
        writer.int(unread)
        writer.endObject()
    }
}


extension InboxItem {
    /// Decodes a row of `InboxSQL.columns`, by name.
    init(row: any StoreRow) throws {
        guard let kind = Kind(rawValue: try row.text("kind")) else {
            throw StoreError.failure("an inbox row has an unknown kind")
        }
        let from: Sender = if let keyID = try row.optionalText("from_key_id") {
            .agent(keyID: keyID, label: try row.optionalText("from_label") ?? "")
        } else {
            .person
        }
        self.init(id: try row.text("id"), accountID: try row.text("account_id"), keyID: try row.text("key_id"),
                  kind: kind, from: from, taskID: try row.optionalText("task_id"),
                  questionID: try row.optionalText("question_id"), text: try row.text("text"),
                  createdAt: try row.int64("created_at"), readAt: try row.optionalInt64("read_at"))
    }
}
