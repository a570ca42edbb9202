import JSON

/// One question of an agent to the person (`rest-api.md#question`). It leaves `pending` once.
public struct Question: Sendable, Equatable {
    public enum Kind: String, CaseIterable, Sendable {
        case confirm, choice, text
    }

    public enum Status: String, CaseIterable, Sendable {
        case pending, answered, expired, cancelled
    }

    /// The options of a `confirm` question.
    public static let confirmOptions = ["Yes", "No"]

    public let id: String
    public let accountID: String
    public let keyID: String
    public let taskID: String?
    public let prompt: String
    public let kind: Kind
    public let options: [String]
    public var status: Status
    public var answer: String?
    public let createdAt: Int64
    public var answeredAt: Int64?
    public let expiresAt: Int64

    public init(id: String, accountID: String, keyID: String, taskID: String?, prompt: String, kind: Kind,
                options: [String], status: Status, answer: String?, createdAt: Int64, answeredAt: Int64?, expiresAt: Int64) {
        self.id = id
        self.accountID = accountID
        self.keyID = keyID
        self.taskID = taskID
        self.prompt = prompt
        self.kind = kind
        self.options = options
        self.status = status
        self.answer = answer
        self.createdAt = createdAt
        self.answeredAt = answeredAt
        self.expiresAt = expiresAt
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("key_id")
        writer.string(keyID)
        writer.key("task_id")
        writer.string(taskID)
        writer.key("prompt")
        writer.string(prompt)
        writer.key("kind")
        writer.string(kind.rawValue)
        writer.key("options")
        writer.beginArray()
        for option in options { writer.string(option) }
        writer.endArray()
        writer.key("status")
        writer.string(status.rawValue)
        writer.key("answer")
        writer.string(answer)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("answered_at")
        writer.timestamp(millis: answeredAt)
        writer.key("expires_at")
        writer.timestamp(millis: expiresAt)
        writer.endObject()
    }
}
