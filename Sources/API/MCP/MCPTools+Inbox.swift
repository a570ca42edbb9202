import HTTP
import JSON
import Relaydeck

/// `check_inbox`, `send_message` and `list_agents` (`inbox.md#mcp-tools`), on the services of
/// `InboxRoutes`.
extension MCPTools {
    /// `wait_seconds` in `Limits.waitSeconds` (default 0), `limit` the sizes of
    /// `Limits.inboxPage` (and its default), `mark_read` (default true). The inbox line has the
    /// number after the call.
    func checkInbox(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        let wait = reader.read("wait_seconds", .int(Limits.waitSeconds)) ?? 0
        let limit = reader.read("limit", .int(Limits.inboxPage.sizes)) ?? Limits.inboxPage.defaultSize
        let markRead = reader.read("mark_read", .bool) ?? true
        try reader.check()
        if wait > 0 && invocation.unread == 0 && !mayWait(invocation.use) { throw Self.tooManyWaiting }
        let render = { (items: [InboxItem], unread: Int) -> HTTPResponse in
            invocation.reply(Self.written(items, unread: unread), summary: Self.summary(items), unread: unread)
        }
        let outcome = try await Wait.inboxItems(of: invocation.use, inbox: services.inbox, seconds: wait, limit: limit,
                                          markRead: markRead, render: render)
        switch outcome {
        case .park(let wait): return .wait(wait)
        case .respond(let response): return .response(response)
        case .stream: throw APIError.defect("the inbox opened a stream")
        case .pending: throw APIError.defect("the inbox waited for work off the loop")
        }
    }

    /// `to` is a key ID or the exact label of a different key of the account; 60 messages an
    /// hour from one sender, counted with `POST /v1/messages`.
    func sendMessage(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        reader.require("to")
        reader.require("text")
        let recipient = reader.read("to", .string)
        let text = reader.read("text", .text(.messageText))
        let taskID = reader.read("task_id", .string)
        try reader.check()
        guard let recipient, let text else { throw APIError.defect("checked arguments lost their to or text") }
        let use = invocation.use
        try await context.messageLimiter.admit(use.keyID, now: context.nowMicros)
        let item = try await services.inbox.send(.key(use), to: .to(recipient), text: text, taskID: taskID)
        return .result(Self.written { item.write(to: &$0) }, summary: "Sent message \(item.id).")
    }

    func listAgents(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        try reader.check()
        let keys = try await services.keys.list(accountID: invocation.use.accountID)
        let structured = Self.written(capacity: 64 + keys.count * 200) {
            Key.writeAgents(keys, selfID: invocation.use.keyID, to: &$0)
        }
        var summary = "\(keys.count) agent\(keys.count == 1 ? "" : "s"):"
        for key in keys {
            summary += "\n- \(key.id): \(key.label)\(key.id == invocation.use.keyID ? " (this agent)" : "")"
        }
        return .result(structured, summary: summary)
    }

    /// `{"items": [...], "unread": N}`, each item as REST writes it.
    static func written(_ items: [InboxItem], unread: Int) -> [UInt8] {
        written(capacity: 64 + items.count * 400) { writer in InboxItem.writePage(items, unread: unread, to: &writer) }
    }

    /// One line per item: what it is and its text.
    static func summary(_ items: [InboxItem]) -> String {
        guard !items.isEmpty else { return "The inbox has no unread items." }
        var summary = "\(items.count) item\(items.count == 1 ? "" : "s"):"
        for item in items {
            summary += "\n- \(item.kind.rawValue)\(item.taskID.map { " (task \($0))" } ?? ""): \(item.text)"
        }
        return summary
    }
}
