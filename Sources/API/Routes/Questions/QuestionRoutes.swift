import EventLoop
import HTTP
import JSON
import Relaydeck

/// `rest-api.md#questions`
final class QuestionRoutes: RouteGroup {
    let context: APIContext
    var questions: Questions { context.services.questions }
    /// The longest `?wait=`, in seconds.
    static let waitRange = Limits.waitSeconds
    /// Pending questions whose `expires_at` passed become `expired` within this (`rest-api.md#question`:
    /// within 10 seconds).
    static let expirySweep = TimeSpan.seconds(5)
    private var sweep: LoopTimer?

    init(_ context: APIContext) {
        self.context = context
        sweep = context.loop.makeTimer { [unowned self] in context.loop.startTask { [unowned self] in await expireDue() } }
        if let sweep { context.loop.reschedule(sweep, at: context.loop.now + Self.expirySweep) }
    }

    var routes: [Route] {
        [
            Route("/v1/questions", [
                // Reads expire what is due, so they write.
                Endpoint(.get, writes: true, scope: .questions, .accountOrKey { [self] call, principal in try await list(&call, principal) }),
                Endpoint(.post, body: true, scope: .questions, .apiKey { [self] call, key in try await ask(&call, key) }),
            ]),
            Route("/v1/questions/{question_id}", [
                Endpoint(.get, writes: true, scope: .questions, .accountOrKey { [self] call, principal in try await get(&call, principal) }),
                Endpoint(.delete, scope: .questions, .apiKey { [self] call, key in try await cancel(&call, key) }),
            ]),
            Route("/v1/questions/{question_id}/answer", [
                Endpoint(.post, body: true, .account { [self] call, account in try await answer(&call, account) }),
            ]),
        ]
    }

    private func expireDue() async {
        do {
            try await questions.expireDue()
        } catch {
            // The store is away; the next sweep, or the next read, expires them.
        }
        if let sweep { context.loop.reschedule(sweep, at: context.loop.now + Self.expirySweep) }
    }

    static func scope(_ principal: Principal) -> Questions.Scope {
        switch principal {
        case .account(let accountID): .account(accountID)
        case .key(let use): .key(use.keyID)
        }
    }

    static func answer(_ question: Question, status: Int = 200) -> Outcome {
        .respond(response(question, status: status))
    }
}
