import Clock
import HTTP
import JSON
import Relaydeck

extension QuestionRoutes {
    /// `GET /v1/questions?status=pending,answered`: newest first, 100 at most; the default
    /// status is `pending`.
    func list(_ call: inout Call, _ principal: Principal) throws -> Outcome {
        var query = call.queryReader()
        let statuses = query.list("status", count: 1...4, distinct: true, FieldKind<Question.Status>.choice)
        try query.check()
        let found = try questions.list(Self.scope(principal), statuses: statuses ?? [.pending])
        return Answers.list("questions", found, bytesEach: 400) { $0.write(to: &$1) }
    }

    /// `POST /v1/questions` (`rest-api.md#ask-a-question`).
    func ask(_ call: inout Call, _ key: KeyUse) throws -> Outcome {
        var body = call.bodyReader()
        let draft = Self.draft(&body)
        try body.check()
        guard let draft else { throw APIError.defect("a checked body lost its prompt") }
        return Self.answer(try questions.ask(accountID: key.accountID, keyID: key.keyID, draft), status: 201)
    }

    /// The fields of a question (also the MCP tool `ask_user`'s, `mcp.md#ask-the-person`); nil
    /// when `prompt` is missing or invalid (a problem is noted).
    static func draft(_ body: inout FieldReader) -> Questions.Draft? {
        body.require("prompt")
        let prompt = body.read("prompt", .text(.questionPrompt))
        let kindSent = body.has("kind")
        let kind = body.read("kind", FieldKind<Question.Kind>.choice)
        var options: [CheckedText]?
        switch kind ?? (kindSent ? nil : .confirm) {
        case .choice?:
            body.require("options")
            options = body.list("options", count: Questions.optionCount, distinct: true, .text(.questionOption))
        case let other?:
            body.ignore("options")
            if body.has("options") { body.add("options", "Not permitted for \(other.rawValue) questions.") }
        case nil:
            // An invalid kind is its own problem: the options cannot be judged without it.
            body.ignore("options")
        }
        let taskID = body.read("task_id", .string)
        let expiresIn = body.read("expires_in", .int(Questions.expiresIn)) ?? Questions.defaultExpiresIn
        guard let prompt else { return nil }
        return Questions.Draft(prompt: prompt, kind: kind ?? .confirm, options: options ?? [], taskID: taskID,
                               expiresIn: expiresIn)
    }

    /// `GET /v1/questions/{question_id}?wait=30` (`rest-api.md#wait-for-the-answer`).
    func get(_ call: inout Call, _ principal: Principal) throws -> Outcome {
        var query = call.queryReader()
        let wait = query.read("wait", .int(Self.waitRange)) ?? 0
        try query.check()
        let scope = Self.scope(principal)
        let question = try questions.get(scope, id: try call.path("question_id"))
        return Self.awaitAnswer(question, scope: scope, wait: wait, services: context.services) { Self.response($0) }
    }

    /// Holds a question until it leaves `pending`, its `expires_at`, or the end of `wait`
    /// seconds, and answers with `render`; at once when it is not pending or `wait` is 0.
    /// The MCP tools `ask_user` and `get_answer` wait the same way.
    static func awaitAnswer(_ question: Question, scope: Questions.Scope, wait: Int, services: Services,
                            render: @escaping (Question) -> HTTPResponse) -> Outcome {
        guard question.status == .pending, wait > 0 else { return .respond(render(question)) }
        let id = question.id
        let questions = services.questions
        let untilExpiry = question.expiresAt - services.clock.wallMillis
        let waitMillis = Int64(wait) * 1000
        // A question that expires before the wait ends answers at its `expires_at`, with
        // `expired`: a result, not a call that only waited.
        let expiresFirst = untilExpiry < waitMillis
        return .park(Wait(
            timeout: .milliseconds(Int(expiresFirst ? max(untilExpiry, 0) + 1 : waitMillis)),
            topics: [.question(id)],
            poll: {
                let now = try questions.get(scope, id: id)
                return now.status == .pending ? nil : render(now)
            },
            expire: { render(try questions.get(scope, id: id)) },
            expiryOnlyWaited: !expiresFirst))
    }

    /// `POST /v1/questions/{question_id}/answer`: `{"answer": "Yes"}`.
    func answer(_ call: inout Call, _ account: AccountCaller) throws -> Outcome {
        var body = call.bodyReader()
        body.require("answer")
        let text = body.read("answer", .string)
        try body.check()
        guard let text else { throw APIError.defect("a checked body lost its answer") }
        let question = try questions.answer(accountID: account.accountID, id: try call.path("question_id"), text)
        return Self.answer(question)
    }

    /// `DELETE /v1/questions/{question_id}`: the agent cancels its question.
    func cancel(_ call: inout Call, _ key: KeyUse) throws -> Outcome {
        try questions.cancel(keyID: key.keyID, id: try call.path("question_id"))
        return Answers.noContent
    }

    static func response(_ question: Question, status: Int = 200) -> HTTPResponse {
        Answers.response(status, capacity: 400) { question.write(to: &$0) }
    }
}
