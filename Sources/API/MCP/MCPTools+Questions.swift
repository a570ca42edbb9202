import HTTP
import JSON
import Relaydeck

/// `ask_user`, `get_answer` (`mcp.md#ask-the-person`) and `notify_user`
/// (`mcp.md#notify-the-person`). The two question tools wait as parked calls, by the same
/// `Wait.answer` as `GET /v1/questions/{question_id}?wait=`, never on a thread.
extension MCPTools {
    /// The fields of `POST /v1/questions` (`FieldReader.questionDraft`), and `wait_seconds`
    /// (`Limits.waitSeconds`, default 30). Above the key's `Limits.waitingCallsPerKey` waiting
    /// calls the question is still asked and returned `pending`.
    func askUser(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        let draft = reader.questionDraft()
        let wait = reader.read("wait_seconds", .int(Limits.waitSeconds)) ?? Limits.toolWaitSeconds
        try reader.check()
        guard let draft else { throw APIError.defect("checked arguments lost their prompt") }
        let use = invocation.use
        let question = try await services.questions.ask(accountID: use.accountID, keyID: use.keyID, draft)
        let answer = awaitAnswer(invocation, question, wait: mayWait(use) ? wait : 0)
        guard case .wait(var held) = answer else { return answer }
        // The call asked a question: a result even when the wait ends with it still pending
        // (`rest-api.md#what-has-an-entry` leaves out only calls that only waited).
        held.expiryOnlyWaited = false
        return .wait(held)
    }

    /// A question of this key, held up to `wait_seconds` (default 30) while it is pending;
    /// above the key's `Limits.waitingCallsPerKey` waiting calls a wait is a tool error.
    func getAnswer(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        let wait = reader.read("wait_seconds", .int(Limits.waitSeconds)) ?? Limits.toolWaitSeconds
        let id = try Self.requiredID("question_id", &reader)
        let question = try await services.questions.get(.key(invocation.use.keyID), id: id)
        if question.status == .pending && wait > 0 && !mayWait(invocation.use) { throw Self.tooManyWaiting }
        return awaitAnswer(invocation, question, wait: wait)
    }

    /// The question now when there is nothing to wait for, else its wait.
    private func awaitAnswer(_ invocation: Invocation, _ question: Question, wait: Int) -> Answer {
        let render = { (question: Question) -> HTTPResponse in
            invocation.reply(Self.written { question.write(to: &$0) }, summary: Self.summary(question))
        }
        guard let held = Wait.answer(of: question, scope: .key(invocation.use.keyID), seconds: wait,
                                     questions: services.questions, clock: services.clock, render: render) else {
            return .response(render(question))
        }
        return .wait(held)
    }

    /// What the agent does next, by `status` (`mcp.md#ask-the-person`).
    static func summary(_ question: Question) -> String {
        switch question.status {
        case .answered: "Question \(question.id) is answered: \"\(question.answer ?? "")\". Use this answer."
        case .pending: "Question \(question.id) is still pending. Call get_answer again, or continue with other work. Do not guess the answer."
        case .expired: "Question \(question.id) expired: the person did not answer in time. Do not guess the answer."
        case .cancelled: "Question \(question.id) was cancelled, or its task was deleted."
        }
    }

    /// `mcp.md#notify-the-person`: `Limits.Rate.notify` (30 calls an hour) for each key. One
    /// visible notification to each device of the account with an `apns_token` and to each of
    /// its Web Push subscriptions (a browser is one of the person's devices), queued in the
    /// outboxes in this request's transaction and sent after the answer:
    /// `{"sent": true, "devices": N}`, or `{"sent": false, "devices": 0}` when there is none.
    func notifyUser(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        reader.require("title")
        reader.require("body")
        let title = reader.read("title", .text(.notificationTitle))
        let body = reader.read("body", .text(.notificationBody))
        let taskID = reader.read("task_id", .string)
        try reader.check()
        if let taskID { _ = try await services.tasks.get(.key(invocation.use), taskID: taskID) }
        try await context.notifyLimiter.admit(invocation.use.keyID, now: context.nowMicros)
        var devices = 0
        if let title, let body {
            devices = try await services.hub.notifyUser(services.store, accountID: invocation.use.accountID,
                                                  keyID: invocation.use.keyID, title: title.value, body: body.value,
                                                  taskID: taskID)
        }
        let structured = Self.written { writer in
            writer.beginObject()
            writer.key("sent")
            writer.bool(devices > 0)
            writer.key("devices")
            writer.int(devices)
            writer.endObject()
        }
        let summary = devices > 0
            ? "Sent to \(devices) device\(devices == 1 ? "" : "s")."
            : "Not sent: no device or browser of the person gets notifications from this server."
        return .result(structured, summary: summary)
    }
}
