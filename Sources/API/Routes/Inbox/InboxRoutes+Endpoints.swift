import EventLoop
import HTTP
import JSON
import Relaydeck

extension InboxRoutes {
    /// `GET /v1/inbox` (`inbox.md#read-the-inbox`): unread items oldest first, now or, with
    /// `wait`, as soon as one comes. Several waiters with `mark_read=true` each look again
    /// on a wake-up; the first takes the item and the others find nothing and wait on.
    func read(_ call: inout Call, _ use: KeyUse) async throws -> Outcome {
        var query = call.queryReader()
        let wait = query.read("wait", .int(Limits.waitSeconds)) ?? 0
        let limit = query.read("limit", .int(Limits.inboxPage.sizes)) ?? Limits.inboxPage.defaultSize
        // A HEAD is answered by this GET, but must not use up what the agent has not seen.
        let markRead = (query.read("mark_read", .bool) ?? true) && call.request.method != .head
        try query.check()
        return try await Wait.inboxItems(of: use, inbox: inbox, seconds: wait, limit: limit, markRead: markRead) { Self.items($0, unread: $1) }
    }

    /// `POST /v1/messages` (`inbox.md#send-a-message`): the account sends `key_id`, a key
    /// sends `to`; the other one is a `422`.
    func send(_ call: inout Call, _ principal: Principal) async throws -> Outcome {
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
        try await context.messageLimiter.admit(principal.credentialID, now: context.nowMicros)
        let item = try await inbox.send(principal, to: principal.keyID == nil ? .keyID(recipient) : .to(recipient),
                                  text: text, taskID: taskID)
        return Answers.object(201, capacity: 300 + item.text.utf8.count) { item.write(to: &$0) }
    }

    /// `GET /v1/agents` (`inbox.md#agent`): every live key of the account, newest first.
    func agents(_ use: KeyUse) async throws -> Outcome {
        let keys = try await context.services.keys.list(accountID: use.accountID)
        return Answers.object(capacity: 64 + keys.count * 200) { Key.writeAgents(keys, selfID: use.keyID, to: &$0) }
    }
}
