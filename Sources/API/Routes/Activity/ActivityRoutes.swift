import HTTP
import JSON
import Relaydeck

/// `rest-api.md#activity-log`: the account reads the log of one of its keys. The entries are
/// written by `ActivityRecorder` after each answer, never here (a read writes the batch that
/// waits first).
final class ActivityRoutes: RouteGroup {
    let context: APIContext
    var activity: ActivityLog { context.services.activity }

    init(_ context: APIContext) {
        self.context = context
    }

    var routes: [Route] {
        [
            Route("/v1/keys/{key_id}/activity", [
                Endpoint(.get, .account { [self] call, account in try await list(&call, account) }),
            ]),
        ]
    }

    /// `GET /v1/keys/{key_id}/activity?limit=&cursor=`: `{"items": [Entry], "next_cursor": ...}`,
    /// newest first. The query is checked before the key is looked up, as elsewhere.
    func list(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        var query = call.queryReader()
        let limit = query.read("limit", .int(Limits.activityPage.sizes)) ?? Limits.activityPage.defaultSize
        let cursor = query.read("cursor", .activityCursor)
        try query.check()
        // The entries still waiting for their batch are this server's newest: the page has them.
        await context.activity.flushed()
        let keyID = try call.path("key_id")
        let (entries, next) = try await activity.page(accountID: account.accountID, keyID: keyID, limit: limit, after: cursor)
        return Answers.object(capacity: 64 + entries.count * 320) { writer in
            writer.beginObject()
            writer.key("items")
            writer.beginArray()
            for entry in entries { entry.write(to: &writer) }
            writer.endArray()
            writer.key("next_cursor")
            writer.string(next?.text)
            writer.endObject()
        }
    }
}
