import JSON

/// The payloads of `push.md`, written with the JSON writer, keys in the contract's order.
enum PushPayloads {
    /// `push.md#visible`, `#message-notifications`, `#new-question`: the `aps` of a visible
    /// notification, whose members follow in `extra`; its texts shortened to fit APNs' 4 KB.
    static func alert(title: String, subtitle: String, body: String, threadID: String, category: String,
                      timeSensitive: Bool, mutableContent: Bool = false,
                      _ extra: (inout JSONWriter) -> Void) -> [UInt8] {
        PayloadFit.fit([body, subtitle, title]) { texts in
            alertPayload(title: texts[2], subtitle: texts[1], body: texts[0], threadID: threadID, category: category,
                         timeSensitive: timeSensitive, mutableContent: mutableContent, extra)
        }
    }

    private static func alertPayload(title: String, subtitle: String, body: String, threadID: String, category: String,
                                     timeSensitive: Bool, mutableContent: Bool,
                                     _ extra: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 384)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writer.key("alert")
        writer.beginObject()
        writer.key("title")
        writer.string(title)
        writer.key("subtitle")
        writer.string(subtitle)
        writer.key("body")
        writer.string(body)
        writer.endObject()
        writer.key("sound")
        writer.string("default")
        writer.key("thread-id")
        writer.string(threadID)
        writer.key("category")
        writer.string(category)
        writer.key("interruption-level")
        writer.string(timeSensitive ? "time-sensitive" : "active")
        if mutableContent {
            writer.key("mutable-content")
            writer.int(1)
        }
        writer.endObject()
        extra(&writer)
        writer.endObject()
        return writer.bytes
    }

    /// `push.md#silent`: `{"aps": {"content-available": 1}, ...}`.
    static func silent(_ extra: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writer.key("content-available")
        writer.int(1)
        writer.endObject()
        extra(&writer)
        writer.endObject()
        return writer.bytes
    }

    /// `push.md#widget-reload`.
    static let widgetReload = Array(#"{"aps":{"content-changed":true}}"#.utf8)

    /// `push.md#task-notifications`: `event`, `task_id`, `key_id`.
    static func taskMembers(event: String, taskID: String, keyID: String) -> (inout JSONWriter) -> Void {
        { writer in
            writer.key("event")
            writer.string(event)
            writer.key("task_id")
            writer.string(taskID)
            writer.key("key_id")
            writer.string(keyID)
        }
    }

    /// `push.md#live-activity`: `start`, `update` or `end` with the content state at `nowMillis`.
    /// Its texts (the question's prompt, the note, the title) are shortened to fit APNs' 4 KB.
    static func liveActivity(_ event: LiveActivityEvent, _ state: LiveActivityState, nowMillis: Int64) -> [UInt8] {
        PayloadFit.fit([state.question?.prompt ?? "", state.task.statusNote ?? "", state.task.title]) { texts in
            var shown = state
            if state.question != nil { shown.promptShown = texts[0] }
            if state.task.statusNote != nil { shown.task.statusNote = texts[1] }
            shown.task.title = texts[2]
            return liveActivityPayload(event, shown, nowMillis: nowMillis)
        }
    }

    private static func liveActivityPayload(_ event: LiveActivityEvent, _ state: LiveActivityState, nowMillis: Int64) -> [UInt8] {
        let now = nowMillis / 1000
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writer.key("timestamp")
        writer.int(now)
        writer.key("event")
        writer.string(event.rawValue)
        writer.key("content-state")
        state.writeContentState(to: &writer)
        switch event {
        case .start, .update:
            writer.key("stale-date")
            writer.int(now + LiveActivityState.staleAfterSeconds)
            writer.key("relevance-score")
            writer.int(state.relevanceScore)
        case .end:
            writer.key("dismissal-date")
            writer.int(now + LiveActivityState.dismissAfterSeconds)
        }
        if event == .start {
            writer.key("attributes-type")
            writer.string("TaskActivityAttributes")
            writer.key("attributes")
            writer.beginObject()
            writer.key("taskID")
            writer.string(state.task.id)
            writer.key("keyLabel")
            writer.string(state.keyLabel)
            writer.endObject()
            writer.key("alert")
            writer.beginObject()
            writer.key("title")
            writer.string(state.keyLabel)
            writer.key("body")
            writer.string(state.task.title)
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}

enum LiveActivityEvent: String {
    case start, update, end
}

/// What a Live Activity shows of a task (`push.md#live-activity`): the content state, and the
/// key's label for the attributes.
struct LiveActivityState {
    var task: WorkTask
    let keyLabel: String
    /// The oldest pending question of the task.
    let question: Question?
    /// The question's prompt as the payload shows it, when it had to be shortened.
    var promptShown: String? = nil

    /// `stale-date`: 30 minutes after the push; `dismissal-date`: 15 minutes after `end`.
    static let staleAfterSeconds: Int64 = 30 * 60
    static let dismissAfterSeconds: Int64 = 15 * 60

    /// `100` with a pending question, `75` while `in_progress`, else `50`.
    var relevanceScore: Int {
        if question != nil { return 100 }
        return task.status == .inProgress ? 75 : 50
    }

    /// The exact keys ActivityKit decodes: `title`, `status`, `progress`, `note`, `updatedAt`,
    /// `question`.
    func writeContentState(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("title")
        writer.string(task.title)
        writer.key("status")
        writer.string(task.status.rawValue)
        writer.key("progress")
        if let progress = task.progress { writer.int(progress) } else { writer.null() }
        writer.key("note")
        writer.string(task.statusNote)
        writer.key("updatedAt")
        writer.timestamp(millis: task.updatedAt)
        writer.key("question")
        if let question {
            writer.beginObject()
            writer.key("id")
            writer.string(question.id)
            writer.key("prompt")
            writer.string(promptShown ?? question.prompt)
            writer.key("kind")
            writer.string(question.kind.rawValue)
            writer.key("options")
            writer.beginArray()
            for option in question.options { writer.string(option) }
            writer.endArray()
            writer.endObject()
        } else {
            writer.null()
        }
        writer.endObject()
    }
}
