import JSON

/// Reading a feed row back (`Change.feedBytes` writes it). Strict: every member the writer
/// writes must be there with its type, `null` only where the field is optional, a value each
/// field can hold; members it does not know are passed over (a later form adds them under a
/// new `"v"` only when the old reading would be wrong). Anything else throws
/// `ChangeFeedCodingError`; nothing traps, whatever the bytes.
extension Change {
    /// Arrays and objects a feed row nests: the change, a task or key, its counts or client.
    static let feedMaxDepth = 4

    public init(feedBytes bytes: [UInt8]) throws(ChangeFeedCodingError) {
        guard bytes.count <= Self.feedMaxBytes else { throw ChangeFeedCodingError(.tooLarge(bytes: bytes.count)) }
        let json: JSON
        do {
            json = try JSONParser.parse(bytes, maxDepth: Self.feedMaxDepth)
        } catch {
            throw ChangeFeedCodingError(.notJSON(error))
        }
        let change = try FeedObject(json, path: "change")
        guard change.members["v"]?.int64Value == Self.feedVersion else { throw ChangeFeedCodingError(.unknownVersion) }
        let event = try Event(feed: change)
        let previous = try change.absentOrObject("previous").map { object throws(ChangeFeedCodingError) in
            try WorkTask(feed: object)
        }
        self.init(accountID: try change.text("account"), event: event, actor: try Actor(feed: change), previous: previous)
    }
}

extension Change.Actor {
    fileprivate init(feed change: FeedObject) throws(ChangeFeedCodingError) {
        if let object = try change.objectIfObject("actor") {
            self = .key(try object.text("key"))
            return
        }
        switch try change.text("actor") {
        case "account": self = .account
        case "server": self = .server
        default: throw ChangeFeedCodingError(.invalid("change.actor"))
        }
    }
}

extension Event {
    fileprivate init(feed change: FeedObject) throws(ChangeFeedCodingError) {
        switch try change.text("event") {
        case "task.created": self = .taskCreated(try WorkTask(feed: change.object("task")))
        case "task.updated": self = .taskUpdated(try WorkTask(feed: change.object("task")))
        case "task.deleted": self = .taskDeleted(taskID: try change.text("task_id"), keyID: try change.text("key_id"))
        case "key.created": self = .keyCreated(try Key(feed: change.object("key")))
        case "key.updated": self = .keyUpdated(try Key(feed: change.object("key")))
        case "key.deleted": self = .keyDeleted(keyID: try change.text("key_id"))
        case "question.created": self = .questionCreated(try Question(feed: change.object("question")))
        case "question.updated": self = .questionUpdated(try Question(feed: change.object("question")))
        case "inbox.updated": self = .inboxUpdated(keyID: try change.text("key_id"), unread: try change.int("unread"))
        case "account.deleted": self = .accountDeleted
        default: throw ChangeFeedCodingError(.unknownEvent)
        }
    }
}

extension WorkTask {
    fileprivate init(feed task: FeedObject) throws(ChangeFeedCodingError) {
        self.init(id: try task.text("id"), accountID: try task.text("account_id"), keyID: try task.text("key_id"),
                  title: try task.text("title"), description: try task.text("description"),
                  status: try task.choice("status"), priority: try task.choice("priority"), notify: try task.bool("notify"),
                  progress: try task.optionalInt64("progress").map { value throws(ChangeFeedCodingError) in
                      try FeedObject.int(value, task.path("progress"))
                  },
                  statusNote: try task.optionalText("status_note"), source: try task.choice("source"),
                  createdAt: try task.int64("created_at"), updatedAt: try task.int64("updated_at"),
                  completedAt: try task.optionalInt64("completed_at"), seenAt: try task.optionalInt64("seen_at"),
                  host: try task.optionalText("host"))
    }
}

extension Question {
    fileprivate init(feed question: FeedObject) throws(ChangeFeedCodingError) {
        self.init(id: try question.text("id"), accountID: try question.text("account_id"), keyID: try question.text("key_id"),
                  taskID: try question.optionalText("task_id"), prompt: try question.text("prompt"),
                  kind: try question.choice("kind"), options: try question.texts("options"), status: try question.choice("status"),
                  answer: try question.optionalText("answer"), createdAt: try question.int64("created_at"),
                  answeredAt: try question.optionalInt64("answered_at"), expiresAt: try question.int64("expires_at"))
    }
}

extension Key {
    fileprivate init(feed key: FeedObject) throws(ChangeFeedCodingError) {
        guard let scopes = ScopeSet(bits: try key.int64("scopes")) else { throw ChangeFeedCodingError(.invalid(key.path("scopes"))) }
        let counts = try key.object("counts")
        let client = try key.optionalObject("last_client").map { client throws(ChangeFeedCodingError) in
            Client(name: try client.text("name"), version: try client.text("version"))
        }
        self.init(id: try key.text("id"), accountID: try key.text("account_id"), label: try key.text("label"),
                  prefix: try key.text("prefix"), last4: try key.text("last4"), createdAt: try key.int64("created_at"),
                  lastUsedAt: try key.optionalInt64("last_used_at"), lastClient: client, lastHost: try key.optionalText("last_host"),
                  scopes: scopes,
                  counts: Counts(todo: try counts.int("todo"), inProgress: try counts.int("in_progress"),
                                 done: try counts.int("done"), cancelled: try counts.int("cancelled")))
    }
}
