import Clock
import HTTP
import JSON
import Relaydeck

/// `app-integrity.md#get-a-challenge`: `POST /v1/attest/challenge`, no credential and no
/// body. It works also while App Attest is off, so an app uses one flow with every server.
final class AttestRoutes: RouteGroup {
    let context: APIContext
    /// Challenges for each client address (`RATE_LIMIT_CHALLENGES_PER_HOUR`, `overview.md#rate-limits`).
    var challengeLimiter: RateLimiter

    init(_ context: APIContext) {
        self.context = context
        challengeLimiter = RateLimiter(limit: context.configuration.challengesPerHour, periodMicros: 3_600_000_000)
    }

    var routes: [Route] {
        [
            Route("/v1/attest/challenge", [
                // Writes nothing to the store: it needs no write lock.
                Endpoint(.post, writes: false, .anyone { [self] call in try challenge(call) }),
            ]),
        ]
    }

    /// The app code first (`app-integrity.md#app-code`), then the address's limit.
    func challenge(_ call: Call) throws -> Outcome {
        try Gate.checkAppCode(call.request, context: context)
        if case .limited(let seconds) = challengeLimiter.take(context.client(of: call.request).text, now: context.nowMicros) {
            throw APIError.rateLimited(retryAfter: seconds)
        }
        guard let challenge = context.challenges.issue(random: context.services.random,
                                                       nowMillis: context.services.clock.wallMillis) else {
            throw APIError.rateLimited(retryAfter: 60)
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
