import HTTP
import JSON
import Relaydeck

/// `rest-api.md#keys`
final class KeyRoutes: RouteGroup {
    let context: APIContext
    var keys: Keys { context.services.keys }

    init(_ context: APIContext) {
        self.context = context
    }

    var routes: [Route] {
        [
            Route("/v1/keys", [
                Endpoint(.get, .account { [self] _, account in try await list(account) }),
                Endpoint(.post, body: true, .account { [self] call, account in try await create(&call, account) }),
            ]),
            Route("/v1/keys/{key_id}", [
                Endpoint(.patch, body: true, .account { [self] call, account in try await update(&call, account) }),
                Endpoint(.delete, .account { [self] call, account in try await delete(&call, account) }),
            ]),
            Route("/v1/keys/{key_id}/grants", [
                Endpoint(.get, .account { [self] call, account in try await grants(call, account) }),
            ]),
            Route("/v1/keys/{key_id}/grants/{grant_id}", [
                Endpoint(.delete, .account { [self] call, account in try await removeGrant(call, account) }),
            ]),
        ]
    }
}
