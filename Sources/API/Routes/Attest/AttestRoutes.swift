import Clock
import HTTP
import JSON
import Relaydeck

/// `app-integrity.md#get-a-challenge`: `POST /v1/attest/challenge`, no credential and no
/// body. It works also while App Attest is off, so an app uses one flow with every server.
final class AttestRoutes: RouteGroup {
    let context: APIContext
    /// Challenges for each client address (`RATE_LIMIT_CHALLENGES_PER_HOUR`, `overview.md#rate-limits`).
    let challengeLimiter: RateLimit

    init(_ context: APIContext) {
        self.context = context
        challengeLimiter = context.rateLimit(.challenges)
    }

    var routes: [Route] {
        [
            Route("/v1/attest/challenge", [
                // Writes nothing to the store: it needs no write lock.
                Endpoint(.post, writes: false, .anyone { [self] call in try await challenge(call) }),
            ]),
        ]
    }

    /// Closed creation first, then the app code (`app-integrity.md#app-code`), then the
    /// address's limit. A challenge serves only `POST /v1/accounts`: while account creation is
    /// closed it is of no use to anyone and would only let a stranger fill the book, so the
    /// route answers the same `403` as account creation.
    func challenge(_ call: Call) async throws -> Outcome {
        guard context.configuration.accountCreationOpen else { throw APIError.accountCreationClosed }
        try Gate.checkAppCode(call.request, context: context)
        try await challengeLimiter.admit(context.client(of: call.request).text, now: context.nowMicros)
        let challenge = ChallengeBook.text(random: context.services.random)
        guard try await context.challenges.issue(Array(challenge.utf8), owner: "", nowMillis: context.services.clock.wallMillis) else {
            throw Limits.challengesFull
        }
        return Answers.object(capacity: 96) { writer in
            writer.beginObject()
            writer.key("challenge")
            writer.string(challenge)
            writer.key("expires_in")
            writer.int(ChallengeBook.lifetimeMillis / 1000)
            writer.endObject()
        }
    }
}
