import Clock
import HTTP
import Relaydeck

/// The wait of a question for its answer (`rest-api.md#wait-for-the-answer`), the same for
/// `GET /v1/questions/{question_id}?wait=` and for the MCP tools `ask_user` and `get_answer`
/// (`mcp.md#ask-the-person`); each gives its own `render`.
extension Wait {
    /// A wait that holds `question` until it leaves `pending`, its `expires_at`, or the end of
    /// `seconds`, and answers with `render`; nil when there is nothing to wait for (it is not
    /// pending, or `seconds` is 0), so the caller answers at once.
    static func answer(of question: Question, scope: Questions.Scope, seconds: Int, questions: Questions,
                       clock: any Clock, render: @escaping (Question) -> HTTPResponse) -> Wait? {
        guard question.status == .pending, seconds > 0 else { return nil }
        let id = question.id
        let untilExpiry = question.expiresAt - clock.wallMillis
        let waitMillis = Int64(seconds) * 1000
        // A question that expires before the wait ends answers at its `expires_at`, with
        // `expired`: a result, not a call that only waited.
        let expiresFirst = untilExpiry < waitMillis
        return Wait(
            timeout: .milliseconds(Int(expiresFirst ? max(untilExpiry, 0) + 1 : waitMillis)),
            topics: [.question(id)],
            poll: {
                let now = try await questions.get(scope, id: id)
                return now.status == .pending ? nil : render(now)
            },
            expire: { render(try await questions.get(scope, id: id)) },
            expiryOnlyWaited: !expiresFirst,
            scope: .questions)
    }
}
