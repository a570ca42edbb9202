import Clock
import HTTP
import Relaydeck

/// The wait of a key for its inbox (`inbox.md#read-the-inbox`), the same for `GET /v1/inbox`
/// and for the MCP tool `check_inbox`; each gives its own `render`.
extension Wait {
    /// The unread items now, or, with `seconds` to wait, as soon as one comes; `render` writes
    /// the answer (also after a wait that found nothing: `[]` and `0`). The MCP tool
    /// `check_inbox` reads the same way.
    static func inboxItems(of use: KeyUse, inbox: Inbox, seconds wait: Int, limit: Int, markRead: Bool,
                           render: @escaping ([InboxItem], Int) -> HTTPResponse) async throws -> Outcome {
        let take = { () async throws -> HTTPResponse? in
            guard try await inbox.unread(keyID: use.keyID) > 0 else { return nil }
            let (items, unread) = try await inbox.read(use, limit: limit, markRead: markRead)
            return render(items, unread)
        }
        // An empty inbox is answered from a read: a hook that asks often writes nothing.
        if let answer = try await take() { return .respond(answer) }
        if wait == 0 { return .respond(render([], 0)) }
        return .park(Wait(timeout: .seconds(wait), topics: [.inbox(use.keyID)], poll: take,
                          expire: { render([], 0) }, scope: .inbox))
    }
}
