import EventLoop
import HTTP
import JSON
import Relaydeck

extension InboxRoutes {
    /// `GET /v1/inbox` (`inbox.md#read-the-inbox`): unread items oldest first, now or, with
    /// `wait`, as soon as one comes. Several waiters with `mark_read=true` each look again
    /// on a wake-up; the first takes the item and the others find nothing and wait on.
    func read(_ call: inout Call, _ use: KeyUse) throws -> Outcome {
        var query = call.queryReader()
        let wait = query.read("wait", .int(Limits.waitSeconds)) ?? 0
        let limit = query.read("limit", .int(Limits.inboxPage.sizes)) ?? Limits.inboxPage.defaultSize
        // A HEAD is answered by this GET, but must not use up what the agent has not seen.
        let markRead = (query.read("mark_read", .bool) ?? true) && call.request.method != .head
        try query.check()
        return try Self.awaitItems(use, inbox: inbox, wait: wait, limit: limit, markRead: markRead) { Self.items($0, unread: $1) }
    }

    /// The unread items now, or, with `wait` seconds, as soon as one comes; `render` writes
    /// the answer (also after a wait that found nothing: `[]` and `0`). The MCP tool
    /// `check_inbox` reads the same way.
    static func awaitItems(_ use: KeyUse, inbox: Inbox, wait: Int, limit: Int, markRead: Bool,
                           render: @escaping ([InboxItem], Int) -> HTTPResponse) throws -> Outcome {
        let take = { () throws -> HTTPResponse? in
            guard try inbox.unread(keyID: use.keyID) > 0 else { return nil }
            let (items, unread) = try inbox.read(use, limit: limit, markRead: markRead)
            return render(items, unread)
        }
        // An empty inbox is answered from a read: a hook that asks often writes nothing.
        if let answer = try take() { return .respond(answer) }
        if wait == 0 { return .respond(render([], 0)) }
        return .park(Wait(timeout: .seconds(wait), topics: [.inbox(use.keyID)], poll: take,
                          expire: { render([], 0) }))
    }

    /// `POST /v1/messages` (`inbox.md#send-a-message`): the account sends `key_id`, a key
    /// sends `to`; the other one is a `422`.
    func send(_ call: inout Call, _ principal: Principal) throws -> Outcome {
        var body = call.bodyReader()
        let recipientField = principal.keyID == nil ? "key_id" : "to"
        let refusedField = principal.keyID == nil ? "to" : "key_id"
        body.require(recipientField)
        body.require("text")
        let recipient = body.read(recipientField, .string)
        if body.has(refusedField) {
            body.ignore(refusedField)
            body.add(refusedField, principal.keyID == nil ? "Not permitted with an account token." : TaskRoutes.accountOnly)
        }
        let text = body.read("text", .text(.messageText))
        let taskID = body.read("task_id", .string)
        try body.check()
        guard let recipient, let text else { throw APIError.defect("a checked body lost its recipient or text") }
        try context.messageLimiter.admit(principal.credentialID, now: context.nowMicros)
        let item = try inbox.send(principal, to: principal.keyID == nil ? .keyID(recipient) : .to(recipient),
                                  text: text, taskID: taskID)
        return Answers.object(201, capacity: 300 + item.text.utf8.count) { item.write(to: &$0) }
    }

    /// `GET /v1/agents` (`inbox.md#agent`): every live key of the account, newest first.
    func agents(_ use: KeyUse) throws -> Outcome {
        let keys = try context.services.keys.list(accountID: use.accountID)
        return Answers.object(capacity: 64 + keys.count * 200) { Self.writeAgents(keys, selfID: use.keyID, to: &$0) }
    }

    /// `{"agents": [Agent]}` (also the MCP tool `list_agents`'s result).
    static func writeAgents(_ keys: [Key], selfID: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("agents")
        writer.beginArray()
        for key in keys {
            writer.beginObject()
            writer.key("key_id")
            writer.string(key.id)
            writer.key("label")
            writer.string(key.label)
            writer.key("is_self")
            writer.bool(key.id == selfID)
            writer.key("last_client")
            Key.Client.write(key.lastClient, to: &writer)
            writer.key("last_used_at")
            writer.timestamp(millis: key.lastUsedAt)
            writer.key("host")
            writer.string(key.lastHost)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
