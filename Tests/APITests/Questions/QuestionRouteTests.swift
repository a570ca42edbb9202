@testable import API
import Clock
import JSON
import Relaydeck
import SQLite
import Testing

/// `rest-api.md#questions`: ask, list, get, answer, cancel, with exact bodies.
@Suite struct QuestionRouteTests {
    private let api: APIHarness
    private let token: String
    private let key: (id: String, secret: String)

    init() throws {
        api = try APIHarness()
        (_, token) = try api.createAccount()
        key = try api.createKey(token: token)
    }

    private func ask(_ body: String, secret: String? = nil) throws -> Answer {
        try api.send("POST", "/v1/questions", [bearer(secret ?? key.secret)], body: body)
    }

    private func askedID(_ body: String = #"{"prompt": "Deploy now?"}"#, secret: String? = nil) throws -> String {
        let answer = try ask(body, secret: secret)
        try #require(answer.status == 201, "\(answer.text)")
        return try #require(try answer.json()["id"]?.stringValue)
    }

    private func insertTask(_ id: String, keyID: String) throws {
        try api.store.write { db in
            try db.statement("""
                INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, \
                created_at, updated_at, created_seq, changed_seq) \
                SELECT ?, account_id, id, 'T', '', 'todo', 'medium', 1, 'agent', 0, 0, 0, 0 FROM keys WHERE id = ?
                """).run(.text(id), .text(keyID))
        }
    }

    @Test func askingAConfirmQuestionAnswersTheWholeQuestion() throws {
        let answer = try ask(#"{"prompt": "  Deploy to\nproduction now? "}"#)
        #expect(answer.status == 201)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        let id = try #require(try answer.json()["id"]?.stringValue)
        #expect(id.hasPrefix("qst_"))
        #expect(answer.text == #"{"id":"\#(id)","key_id":"\#(key.id)","task_id":null,"prompt":"Deploy to production now?","kind":"confirm","options":["Yes","No"],"status":"pending","answer":null,"created_at":1760000000.0,"answered_at":null,"expires_at":1760003600.0}"#)
        #expect(api.record(of: answer).route == "/v1/questions")
    }

    @Test func aChoiceQuestionKeepsItsOptionsAndTask() throws {
        try insertTask("tsk_1", keyID: key.id)
        let answer = try ask(#"{"prompt": "Which?", "kind": "choice", "options": ["Staging", " Production "], "task_id": "tsk_1", "expires_in": 60}"#)
        #expect(answer.status == 201)
        let json = try answer.json()
        #expect(json["options"] == .array([.string("Staging"), .string("Production")]))
        #expect(json["task_id"]?.stringValue == "tsk_1")
        #expect(json["expires_at"] == .number(JSONNumber(literal: "1760000060.0")!))
    }

    @Test(arguments: [
        (#"{}"#, [("prompt", "Required.")]),
        (#"{"prompt": ""}"#, [("prompt", "Must be 1 to 300 characters.")]),
        (#"{"prompt": "a", "kind": "poll"}"#, [("kind", "Must be one of: confirm, choice, text.")]),
        (#"{"prompt": "a", "kind": "choice"}"#, [("options", "Required.")]),
        (#"{"prompt": "a", "kind": "poll", "options": ["x"]}"#, [("kind", "Must be one of: confirm, choice, text.")]),
        (#"{"prompt": "a", "options": ["x", "y"]}"#, [("options", "Not permitted for confirm questions.")]),
        (#"{"prompt": "a", "kind": "text", "options": []}"#, [("options", "Not permitted for text questions.")]),
        (#"{"prompt": "a", "kind": "choice", "options": ["x"]}"#, [("options", "Must have 2 to 4 items.")]),
        (#"{"prompt": "a", "kind": "choice", "options": ["a", "b", "c", "d", "e"]}"#, [("options", "Must have 2 to 4 items.")]),
        (#"{"prompt": "a", "kind": "choice", "options": ["x", " x"]}"#, [("options[1]", "Repeats an earlier item.")]),
        (#"{"prompt": "a", "kind": "choice", "options": ["x", "1234567890123456789012345678901"]}"#, [("options[1]", "Must be 1 to 30 characters.")]),
        (#"{"prompt": "a", "expires_in": 59}"#, [("expires_in", "Must be an integer from 60 to 86,400.")]),
        (#"{"prompt": "a", "expires_in": 86401}"#, [("expires_in", "Must be an integer from 60 to 86,400.")]),
        (#"{"prompt": "a", "task_id": 5, "answer": "Yes"}"#, [("answer", "Unknown field."), ("task_id", "Must be a string.")]),
    ])
    func anInvalidQuestionNamesEveryField(body: String, fields: [(String, String)]) throws {
        let answer = try ask(body)
        #expect(answer.status == 422)
        #expect(answer.text == validationBody(fields))
    }

    @Test func onlyAnAPIKeyAsks() throws {
        let answer = try api.send("POST", "/v1/questions", [bearer(token)], body: #"{"prompt": "a"}"#)
        #expect(answer.status == 403)
        #expect(answer.text == errorBody("forbidden", "An account token cannot use this route."))
    }

    @Test func aTaskOfAnotherKeyOrNoTaskIsNotFound() throws {
        let other = try api.createKey(token: token, label: "Other")
        try insertTask("tsk_other", keyID: other.id)
        for taskID in ["tsk_other", "tsk_none"] {
            let answer = try ask(#"{"prompt": "a", "task_id": "\#(taskID)"}"#)
            #expect(answer.status == 404)
            #expect(answer.text == errorBody("not_found", "Task not found."))
        }
    }

    @Test func aKeyHasTwentyPendingQuestions() throws {
        for _ in 0..<20 { _ = try askedID() }
        let answer = try ask(#"{"prompt": "one more"}"#)
        #expect(answer.status == 409)
        #expect(answer.text == errorBody("conflict", "A key can have 20 pending questions."))
        // Another key is not affected; a closed question frees a place.
        let other = try api.createKey(token: token, label: "Other")
        _ = try askedID(secret: other.secret)
        let first = try #require(try api.send("GET", "/v1/questions", [bearer(key.secret)]).json()["questions"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(try api.send("DELETE", "/v1/questions/\(first)", [bearer(key.secret)]).status == 204)
        #expect(try ask(#"{"prompt": "now it fits"}"#).status == 201)
    }

    @Test func listingShowsPendingByDefaultNewestFirstAndFiltersByStatus() throws {
        let first = try askedID()
        api.clock.advance(millis: 1000)
        let second = try askedID()
        #expect(try api.send("POST", "/v1/questions/\(first)/answer", [bearer(token)], body: #"{"answer": "No"}"#).status == 200)
        func ids(_ target: String, _ secret: String) throws -> [String] {
            let answer = try api.send("GET", target, [bearer(secret)])
            try #require(answer.status == 200, "\(answer.text)")
            return (try answer.json()["questions"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
        #expect(try ids("/v1/questions", key.secret) == [second])
        #expect(try ids("/v1/questions?status=answered", key.secret) == [first])
        #expect(try ids("/v1/questions?status=pending,answered", token) == [second, first])
        let bad = try api.send("GET", "/v1/questions?status=open", [bearer(key.secret)])
        #expect(bad.text == validationBody([("status[0]", "Must be one of: pending, answered, expired, cancelled.")]))
    }

    @Test func aKeySeesOnlyItsOwnQuestionsAndTheAccountSeesAll() throws {
        let other = try api.createKey(token: token, label: "Other")
        let mine = try askedID()
        #expect(try api.send("GET", "/v1/questions/\(mine)", [bearer(other.secret)]).text == errorBody("not_found", "Question not found."))
        #expect(try api.send("DELETE", "/v1/questions/\(mine)", [bearer(other.secret)]).status == 404)
        #expect(try api.send("GET", "/v1/questions", [bearer(other.secret)]).text == #"{"questions":[]}"#)
        #expect(try api.send("GET", "/v1/questions/\(mine)", [bearer(token)]).status == 200)
        let (_, stranger) = try api.createAccount()
        #expect(try api.send("GET", "/v1/questions/\(mine)", [bearer(stranger)]).status == 404)
        #expect(try api.send("POST", "/v1/questions/\(mine)/answer", [bearer(stranger)], body: #"{"answer": "Yes"}"#).status == 404)
    }

    @Test func anAnswerLeavesPendingOnceAndTheSecondIs409() throws {
        let id = try askedID()
        let answered = try api.send("POST", "/v1/questions/\(id)/answer", [bearer(token)], body: #"{"answer": " Yes "}"#)
        #expect(answered.status == 200)
        let json = try answered.json()
        #expect(json["status"]?.stringValue == "answered")
        #expect(json["answer"]?.stringValue == "Yes")
        #expect(json["answered_at"] == .number(JSONNumber(literal: "1760000000.0")!))
        let again = try api.send("POST", "/v1/questions/\(id)/answer", [bearer(token)], body: #"{"answer": "No"}"#)
        #expect(again.status == 409)
        #expect(again.text == errorBody("conflict", "The question is answered."))
        #expect(try api.send("DELETE", "/v1/questions/\(id)", [bearer(key.secret)]).text == errorBody("conflict", "The question is answered."))
    }

    @Test(arguments: [
        (#"{"prompt": "a"}"#, #"{"answer": "Maybe"}"#, "Must be one of: Yes, No."),
        (#"{"prompt": "a", "kind": "choice", "options": ["Staging", "Prod"]}"#, #"{"answer": "staging"}"#, "Must be one of: Staging, Prod."),
        (#"{"prompt": "a", "kind": "text"}"#, #"{"answer": "  "}"#, "Must be 1 to 1,000 characters."),
    ])
    func anAnswerOutsideTheOptionsIs422(question: String, body: String, message: String) throws {
        let id = try askedID(question)
        let answer = try api.send("POST", "/v1/questions/\(id)/answer", [bearer(token)], body: body)
        #expect(answer.status == 422)
        #expect(answer.text == validationBody([("answer", message)]))
        #expect(try api.send("GET", "/v1/questions/\(id)", [bearer(token)]).json()["status"]?.stringValue == "pending")
    }

    @Test func aTypedAnswerLosesOnlyTheSpaceAtItsEnds() throws {
        let id = try askedID(#"{"prompt": "Notes?", "kind": "text"}"#)
        let answer = try api.send("POST", "/v1/questions/\(id)/answer", [bearer(token)], body: #"{"answer": "  first line\n  second  "}"#)
        #expect(try answer.json()["answer"]?.stringValue == "first line\n  second")
    }

    @Test func cancellingIs204TwiceAndTheQuestionIsCancelled() throws {
        let id = try askedID()
        #expect(try api.send("DELETE", "/v1/questions/\(id)", [bearer(key.secret)]).status == 204)
        #expect(try api.send("DELETE", "/v1/questions/\(id)", [bearer(key.secret)]).status == 204)
        #expect(try api.send("GET", "/v1/questions/\(id)", [bearer(key.secret)]).json()["status"]?.stringValue == "cancelled")
        #expect(try api.send("DELETE", "/v1/questions/\(id)", [bearer(token)]).status == 403)
    }

    @Test func aQuestionPastItsTimeExpiresWhenReadOrAnswered() throws {
        let id = try askedID(#"{"prompt": "a", "expires_in": 60}"#)
        api.clock.advance(millis: 60_000)
        let read = try api.send("GET", "/v1/questions/\(id)", [bearer(key.secret)])
        #expect(try read.json()["status"]?.stringValue == "expired")
        #expect(try read.json()["answered_at"] == .null)
        let late = try askedID(#"{"prompt": "b", "expires_in": 60}"#)
        api.clock.advance(millis: 60_001)
        let answer = try api.send("POST", "/v1/questions/\(late)/answer", [bearer(token)], body: #"{"answer": "Yes"}"#)
        #expect(answer.text == errorBody("conflict", "The question is expired."))
        #expect(try api.send("DELETE", "/v1/questions/\(late)", [bearer(key.secret)]).status == 409)
    }

    @Test func aWaitOfZeroOrOutOfRangeIsAnsweredAtOnce() throws {
        let id = try askedID()
        #expect(try api.send("GET", "/v1/questions/\(id)?wait=0", [bearer(key.secret)]).status == 200)
        let bad = try api.send("GET", "/v1/questions/\(id)?wait=51", [bearer(key.secret)])
        #expect(bad.text == validationBody([("wait", "Must be an integer from 0 to 50.")]))
    }
}

extension APIHarness {
    func record(of answer: Answer) -> RequestRecord { answer.record }
}
