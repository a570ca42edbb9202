import JSON

/// What the console's service worker gets from a push (issue 21), as JSON before encryption:
/// `{"event", "title", "body", "tag", "url", "key_id", "task_id", "question_id", "kind",
/// "options", "expires_at"}`. A notification on the web has a title and a body, no subtitle:
/// the title is the APNs alert's title and subtitle joined ("Claude Code: Task done"), the
/// body the alert's body. `tag` (the task or question ID) makes a newer notification replace
/// the older one in the browser, as `apns-collapse-id` does on the phone.
public struct WebPushPayload: Sendable, Equatable {
    /// The most bytes of the JSON: one record of RFC 8291 holds 3,993, and push services differ
    /// in what they take past 3,000 (`413`). Texts are shortened to fit, then options dropped.
    public static let limit = 3_000

    public var event: String
    public var title: String
    public var body: String
    public var tag: String?
    /// The console's page for it, a path of this server (`/app/#/task/tsk_…`).
    public var url: String
    public var keyID: String?
    public var taskID: String?
    public var questionID: String?
    public var kind: Question.Kind?
    public var options: [String] = []
    /// Wall milliseconds; a question's.
    public var expiresAt: Int64?

    public init(event: String, title: String, body: String, tag: String?, url: String, keyID: String? = nil,
                taskID: String? = nil, questionID: String? = nil, kind: Question.Kind? = nil, options: [String] = [],
                expiresAt: Int64? = nil) {
        self.event = event
        self.title = title
        self.body = body
        self.tag = tag
        self.url = url
        self.keyID = keyID
        self.taskID = taskID
        self.questionID = questionID
        self.kind = kind
        self.options = options
        self.expiresAt = expiresAt
    }

    /// "Claude Code: Task done"; the label alone when the other part is empty.
    static func title(_ label: String, _ what: String) -> String {
        label.isEmpty ? what : what.isEmpty ? label : label + ": " + what
    }

    /// The console's pages (`web/js/main.js`'s routes).
    static func url(task id: String) -> String { "/app/#/task/" + id }
    static func url(question id: String) -> String { "/app/#/questions/" + id }
    static func url(key id: String) -> String { "/app/#/key/" + id }
    static let settingsURL = "/app/#/settings"

    /// The JSON, at most `limit` bytes: the body shortened first, then the title; a question's
    /// options go from the last while it is still too long (the notification then shows fewer
    /// buttons, and a tap opens the question).
    public var bytes: [UInt8] {
        var shown = self
        while true {
            let fitted = PayloadFit.fit([shown.body, shown.title], limit: Self.limit) { texts in
                var candidate = shown
                candidate.body = texts[0]
                candidate.title = texts[1]
                return candidate.encoded
            }
            if fitted.count <= Self.limit || shown.options.isEmpty { return fitted }
            shown.options.removeLast()
        }
    }

    private var encoded: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("event")
        writer.string(event)
        writer.key("title")
        writer.string(title)
        writer.key("body")
        writer.string(body)
        writer.key("tag")
        writer.string(tag)
        writer.key("url")
        writer.string(url)
        writer.key("key_id")
        writer.string(keyID)
        writer.key("task_id")
        writer.string(taskID)
        writer.key("question_id")
        writer.string(questionID)
        writer.key("kind")
        writer.string(kind?.rawValue)
        writer.key("options")
        writer.beginArray()
        for option in options { writer.string(option) }
        writer.endArray()
        writer.key("expires_at")
        writer.timestamp(millis: expiresAt)
        writer.endObject()
        return writer.bytes
    }
}
