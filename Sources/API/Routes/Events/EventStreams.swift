import HTTP
import JSON
import Relaydeck

/// The open event streams, by account (`events.md`). Every committed change of the hub goes,
/// encoded once, to each open stream of its account and never to another account's; the
/// hub's order is the commit order, so every stream sees the changes in that order. A
/// stream is a connection and a timer, not a thread: it costs its buffers only.
final class EventStreams {
    /// `events.md#reconnect`: the 17th stream of one account ends its oldest.
    static let maxPerAccount = Limits.eventStreamsPerAccount

    /// Oldest first.
    private var byAccount: [String: [EventStream]] = [:]

    var count: Int { byAccount.values.reduce(0) { $0 + $1.count } }

    func count(of accountID: String) -> Int { byAccount[accountID]?.count ?? 0 }

    func add(_ stream: EventStream, accountID: String) {
        var streams = byAccount[accountID, default: []]
        streams.append(stream)
        byAccount[accountID] = streams
        while let oldest = byAccount[accountID]?.first, (byAccount[accountID]?.count ?? 0) > Self.maxPerAccount {
            // Its `closed` callback removes it from the table.
            oldest.end()
            if byAccount[accountID]?.first === oldest { byAccount[accountID]?.removeFirst() }
        }
    }

    func remove(_ stream: EventStream, accountID: String) {
        byAccount[accountID]?.removeAll { $0 === stream }
        if byAccount[accountID]?.isEmpty == true { byAccount[accountID] = nil }
    }

    /// Sends `change` to its account's streams; `account.deleted` also ends them.
    func deliver(_ change: Change) {
        guard let streams = byAccount[change.accountID] else { return }
        let data = Self.data(of: change.event)
        for stream in streams {
            stream.send(event: change.event.name, data: data)
        }
        if case .accountDeleted = change.event {
            for stream in streams { stream.end() }
        }
    }

    /// Ends every stream (the store is lost: `events.md#reconnect`).
    func endAll() {
        let all = byAccount.values.flatMap { $0 }
        for stream in all { stream.end() }
    }

    /// The one line of JSON data of each event (`events.md#event-types`).
    static func data(of event: Event) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        switch event {
        case .taskCreated(let task), .taskUpdated(let task):
            writer.key("task")
            task.write(to: &writer)
        case .taskDeleted(let taskID, let keyID):
            writer.key("task_id")
            writer.string(taskID)
            writer.key("key_id")
            writer.string(keyID)
        case .keyCreated(let key), .keyUpdated(let key):
            writer.key("key")
            key.write(to: &writer)
        case .keyDeleted(let keyID):
            writer.key("key_id")
            writer.string(keyID)
        case .questionCreated(let question), .questionUpdated(let question):
            writer.key("question")
            question.write(to: &writer)
        case .inboxUpdated(let keyID, let unread):
            writer.key("key_id")
            writer.string(keyID)
            writer.key("unread")
            writer.int(unread)
        case .accountDeleted:
            break
        }
        writer.endObject()
        return writer.bytes
    }
}
