import JSON

/// A change as the nodes of one PostgreSQL database pass it to each other (issue 25: every
/// committed change published across nodes), one row of the change feed each: JSON in the
/// project's own writer, every field of the task, question or key and `previous` included,
/// so the node that reads it publishes what the node that wrote it published.
///
/// Not the stream's form (`WorkTask.write`, `Key.write`, `Question.write`): that one leaves out
/// the account, writes times as seconds with a fraction and `previous` not at all. Here times
/// are the stored milliseconds, scopes their bits, and `"v"` says which form this is, so a node
/// of an older binary refuses a newer form instead of reading it wrong.
///
/// `{"v":1,"account":"acc_...","actor":"account"|"server"|{"key":"key_..."},
///   "event":"task.updated","task":{...},"previous":{...}}`; the other events carry `key`,
/// `question`, `task_id`, `key_id` or `unread` as their case holds.
extension Change {
    /// The form written now; `init(feedBytes:)` reads only this one.
    public static let feedVersion: Int64 = 1

    /// The most bytes a change takes in the feed: 1 MiB. The largest change the contract's
    /// limits allow (`overview.md#limits`, `TextRule`) is `task.updated` with `previous`, two
    /// tasks. A description is at most 80,000 bytes as sent (`TextRule.taskDescription`) and
    /// keeps its white space, so it may be all U+000B (a vertical tab is white space), each of
    /// which JSON writes as `\u000b`: 480,000 bytes. A title (800 bytes), `status_note` (560)
    /// and `host` (64) are one line, so the worst they hold is `"` and `\`, two bytes each:
    /// 2,848. The IDs, times and names are under 500. About 483,000 a task, 967,000 for two.
    /// A question (prompt 1,200 bytes, 4 options of 120, an answer of 4,000 that may be all
    /// U+000B) and a key (a label of 160, a client's name and version of 600 bytes each) are
    /// far smaller. `ChangeFeedCodingTests` builds that largest change and checks it fits.
    public static let feedMaxBytes = 1 << 20

    /// The change in the feed's form. Throws `tooLarge` past `feedMaxBytes`, which no change
    /// within the contract's limits reaches.
    public func feedBytes() throws(ChangeFeedCodingError) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("v")
        writer.int(Self.feedVersion)
        writer.key("account")
        writer.string(accountID)
        writer.key("actor")
        switch actor {
        case .account: writer.string("account")
        case .server: writer.string("server")
        case .key(let keyID):
            writer.beginObject()
            writer.key("key")
            writer.string(keyID)
            writer.endObject()
        }
        writer.key("event")
        writer.string(event.name)
        event.writeFeedMembers(to: &writer)
        if let previous {
            writer.key("previous")
            previous.writeFeed(to: &writer)
        }
        writer.endObject()
        guard writer.bytes.count <= Self.feedMaxBytes else { throw ChangeFeedCodingError(.tooLarge(bytes: writer.bytes.count)) }
        return writer.bytes
    }
}

extension Event {
    /// What each case carries, after its name.
    fileprivate func writeFeedMembers(to writer: inout JSONWriter) {
        switch self {
        case .taskCreated(let task), .taskUpdated(let task):
            writer.key("task")
            task.writeFeed(to: &writer)
        case .taskDeleted(let taskID, let keyID):
            writer.key("task_id")
            writer.string(taskID)
            writer.key("key_id")
            writer.string(keyID)
        case .keyCreated(let key), .keyUpdated(let key):
            writer.key("key")
            key.writeFeed(to: &writer)
        case .keyDeleted(let keyID):
            writer.key("key_id")
            writer.string(keyID)
        case .questionCreated(let question), .questionUpdated(let question):
            writer.key("question")
            question.writeFeed(to: &writer)
        case .inboxUpdated(let keyID, let unread):
            writer.key("key_id")
            writer.string(keyID)
            writer.key("unread")
            writer.int(unread)
        case .accountDeleted:
            break
        }
    }
}

extension WorkTask {
    fileprivate func writeFeed(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("account_id")
        writer.string(accountID)
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
        writer.optionalInt(progress.map(Int64.init))
        writer.key("status_note")
        writer.string(statusNote)
        writer.key("source")
        writer.string(source.rawValue)
        writer.key("created_at")
        writer.int(createdAt)
        writer.key("updated_at")
        writer.int(updatedAt)
        writer.key("completed_at")
        writer.optionalInt(completedAt)
        writer.key("seen_at")
        writer.optionalInt(seenAt)
        writer.key("host")
        writer.string(host)
        writer.endObject()
    }
}

extension Question {
    fileprivate func writeFeed(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("account_id")
        writer.string(accountID)
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
        writer.int(createdAt)
        writer.key("answered_at")
        writer.optionalInt(answeredAt)
        writer.key("expires_at")
        writer.int(expiresAt)
        writer.endObject()
    }
}

extension Key {
    fileprivate func writeFeed(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("account_id")
        writer.string(accountID)
        writer.key("label")
        writer.string(label)
        writer.key("prefix")
        writer.string(prefix)
        writer.key("last4")
        writer.string(last4)
        writer.key("created_at")
        writer.int(createdAt)
        writer.key("last_used_at")
        writer.optionalInt(lastUsedAt)
        writer.key("last_client")
        Client.write(lastClient, to: &writer)
        writer.key("last_host")
        writer.string(lastHost)
        writer.key("scopes")
        writer.int(scopes.bits)
        writer.key("counts")
        writer.beginObject()
        writer.key("todo")
        writer.int(counts.todo)
        writer.key("in_progress")
        writer.int(counts.inProgress)
        writer.key("done")
        writer.int(counts.done)
        writer.key("cancelled")
        writer.int(counts.cancelled)
        writer.endObject()
        writer.endObject()
    }
}

extension JSONWriter {
    /// The integer, or `null`.
    fileprivate mutating func optionalInt(_ value: Int64?) {
        if let value { int(value) } else { null() }
    }
}
