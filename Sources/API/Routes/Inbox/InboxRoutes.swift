import HTTP
import JSON
import Relaydeck

/// `inbox.md#rest`: the inbox of a key, messages, and the agents of an account.
final class InboxRoutes: RouteGroup {
    let context: APIContext
    var inbox: Inbox { context.services.inbox }

    init(_ context: APIContext) {
        self.context = context
    }

    var routes: [Route] {
        [
            Route("/v1/inbox", [
                // A read marks items read and sets `seen_at`: it writes.
                Endpoint(.get, writes: true, scope: .inbox, .apiKey { [self] call, use in try await read(&call, use) }),
            ]),
            Route("/v1/messages", [
                Endpoint(.post, body: true, scope: .messages, .accountOrKey { [self] call, principal in try await send(&call, principal) }),
            ]),
            Route("/v1/keys/{key_id}/inbox", [
                Endpoint(.get, .account { [self] call, account in
                    let (items, unread) = try await inbox.recent(accountID: account.accountID, keyID: try call.path("key_id"))
                    return .respond(Self.items(items, unread: unread))
                }),
            ]),
            // The agents are whom a key can message (`send_message`'s `to`): a key that may
            // not message them has no need of their labels, clients and hosts.
            Route("/v1/agents", [
                Endpoint(.get, scope: .messages, .apiKey { [self] _, use in try await agents(use) }),
            ]),
        ]
    }

    /// `{"items": [Item], "unread": 2}`
    static func items(_ items: [InboxItem], unread: Int) -> HTTPResponse {
        Answers.response(capacity: 64 + items.reduce(0) { $0 + 300 + $1.text.utf8.count }) { writer in
            InboxItem.writePage(items, unread: unread, to: &writer)
        }
    }
}
