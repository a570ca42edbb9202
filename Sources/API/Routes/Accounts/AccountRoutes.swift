import HTTP
import JSON
import Relaydeck

/// `rest-api.md#accounts`
final class AccountRoutes: RouteGroup {
    let context: APIContext
    var accounts: Accounts { context.services.accounts }
    /// `POST /v1/accounts` for each client address (`RATE_LIMIT_ACCOUNTS_PER_HOUR`).
    let creationLimiter: RateLimit

    init(_ context: APIContext) {
        self.context = context
        creationLimiter = context.rateLimit(.accounts)
    }

    var routes: [Route] {
        [
            Route("/v1/accounts", [
                Endpoint(.post, body: true, .anyone { [self] call in try await create(&call) }),
            ]),
            Route("/v1/account", [
                Endpoint(.get, .account { [self] _, account in try await get(account) }),
                Endpoint(.patch, body: true, .account { [self] call, account in try await update(&call, account) }),
                Endpoint(.delete, .account { [self] _, account in try await delete(account) }),
            ]),
        ]
    }

    static func answer(_ account: Account) -> Outcome {
        Answers.object(capacity: 96) { account.write(to: &$0) }
    }
}
