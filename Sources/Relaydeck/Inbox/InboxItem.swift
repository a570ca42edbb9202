import JSON

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
}
