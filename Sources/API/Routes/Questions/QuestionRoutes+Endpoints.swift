import Clock
import HTTP
import JSON
import Relaydeck

extension QuestionRoutes {
    /// `GET /v1/questions?status=pending,answered`: newest first, 100 at most; the default
    /// status is `pending`.
    func list(_ call: inout Call, _ principal: Principal) async throws -> Outcome {
        var query = call.queryReader()
        let statuses = query.list("status", count: 1...4, distinct: true, FieldKind<Question.Status>.choice)
        try query.check()
        let found = try await questions.list(Self.scope(principal), statuses: statuses ?? [.pending])
        return Answers.list("questions", found, bytesEach: 400) { $0.write(to: &$1) }
    }

    /// `POST /v1/questions` (`rest-api.md#ask-a-question`).
    func ask(_ call: inout Call, _ key: KeyUse) async throws -> Outcome {
        var body = call.bodyReader()
        let draft = body.questionDraft()
        try body.check()
        guard let draft else { throw APIError.defect("a checked body lost its prompt") }
        return Self.answer(try await questions.ask(accountID: key.accountID, keyID: key.keyID, draft), status: 201)
    }

    /// `GET /v1/questions/{question_id}?wait=30` (`rest-api.md#wait-for-the-answer`): a pending
    /// question is held by its wait (`Wait.answer`, which the MCP tools share).
    func get(_ call: inout Call, _ principal: Principal) async throws -> Outcome {
        var query = call.queryReader()
        let wait = query.read("wait", .int(Self.waitRange)) ?? 0
        try query.check()
        let scope = Self.scope(principal)
        let question = try await questions.get(scope, id: try call.path("question_id"))
        let held = Wait.answer(of: question, scope: scope, seconds: wait, questions: questions, clock: context.services.clock) {
            Self.response($0)
        }
        return held.map { .park($0) } ?? Self.answer(question)
    }

    /// `POST /v1/questions/{question_id}/answer`: `{"answer": "Yes"}`.
    func answer(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        var body = call.bodyReader()
        body.require("answer")
        let text = body.read("answer", .string)
        try body.check()
        guard let text else { throw APIError.defect("a checked body lost its answer") }
        let question = try await questions.answer(accountID: account.accountID, id: try call.path("question_id"), text)
        return Self.answer(question)
    }

    /// `DELETE /v1/questions/{question_id}`: the agent cancels its question.
    func cancel(_ call: inout Call, _ key: KeyUse) async throws -> Outcome {
        try await questions.cancel(accountID: key.accountID, keyID: key.keyID, id: try call.path("question_id"))
        return Answers.noContent
    }

    static func response(_ question: Question, status: Int = 200) -> HTTPResponse {
        Answers.response(status, capacity: 400) { question.write(to: &$0) }
    }
}
