import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// `inbox.md#rest`: the inbox, messages and agents through the routes.
@Suite struct InboxRouteTests {
    let api: APIHarness
    let token: String
    let key: (id: String, secret: String)

    init() throws {
        api = try APIHarness()
        token = try api.createAccount().token
        key = try api.createKey(token: token, label: "Claude Code")
    }

    func message(_ body: String, _ credential: (String, String)) throws -> Answer {
        try api.send("POST", "/v1/messages", [credential], body: body)
    }

    @Test func thePersonsMessageComesToTheInboxOnce() throws {
        let sent = try message(#"{"key_id": "\#(key.id)", "text": "  Stop and\n rebase first. "}"#, bearer(token))
        #expect(sent.status == 201)
        let id = try #require(try sent.json()["id"]?.stringValue)
        let item = #"{"id":"\#(id)","kind":"message","from":{"type":"person"},"task_id":null,"question_id":null,"#
            + #""text":"Stop and\n rebase first.","created_at":1760000000.0,"read_at":"#
        #expect(sent.text == item + "null}")
        api.clock.advance(millis: 1_500)
        let read = try api.send("GET", "/v1/inbox", [apiKey(key.secret)])
        #expect(read.status == 200)
        #expect(read.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        #expect(read.text == #"{"items":[\#(item)1760000001.5}],"unread":0}"#)
        #expect(try api.send("GET", "/v1/inbox", [apiKey(key.secret)]).text == #"{"items":[],"unread":0}"#)
        let recent = try api.send("GET", "/v1/keys/\(key.id)/inbox", [bearer(token)])
        #expect(recent.text == #"{"items":[\#(item)1760000001.5}],"unread":0}"#)
        // A HEAD reads nothing away.
        #expect(try message(#"{"key_id": "\#(key.id)", "text": "more"}"#, bearer(token)).status == 201)
        #expect(try api.send("HEAD", "/v1/inbox", [apiKey(key.secret)]).status == 200)
        #expect(try api.send("GET", "/v1/inbox?mark_read=false", [apiKey(key.secret)]).json()["unread"]?.int64Value == 1)
    }

    @Test func markReadFalseAndLimitLeaveItemsUnread() throws {
        for text in ["a", "b", "c"] {
            #expect(try message(#"{"key_id": "\#(key.id)", "text": "\#(text)"}"#, bearer(token)).status == 201)
            api.clock.advance(millis: 1)
        }
        let peek = try api.send("GET", "/v1/inbox?limit=2&mark_read=false", [apiKey(key.secret)]).json()
        #expect(peek["items"]?.arrayValue?.map { $0["text"]?.stringValue } == ["a", "b"] && peek["unread"]?.int64Value == 3)
        let recent = try api.send("GET", "/v1/keys/\(key.id)/inbox", [bearer(token)]).json()
        #expect(recent["items"]?.arrayValue?.map { $0["text"]?.stringValue } == ["c", "b", "a"] && recent["unread"]?.int64Value == 3)
    }

    @Test func eachCredentialHasItsRoutes() throws {
        #expect(try api.send("GET", "/v1/inbox", [bearer(token)]).text == errorBody("forbidden", "An account token cannot use this route."))
        #expect(try api.send("GET", "/v1/agents", [bearer(token)]).status == 403)
        #expect(try api.send("GET", "/v1/keys/\(key.id)/inbox", [apiKey(key.secret)]).text
            == errorBody("forbidden", "An API key cannot use this route."))
        let stranger = try api.createAccount().token
        #expect(try api.send("GET", "/v1/keys/\(key.id)/inbox", [bearer(stranger)]).text == errorBody("not_found", "Key not found."))
    }

    @Test func badMessagesAreNamedAtOnce() throws {
        let account = try message(#"{"to": "x", "text": "", "task_id": 5}"#, bearer(token))
        #expect(account.text == validationBody([("key_id", "Required."), ("task_id", "Must be a string."),
                                                ("text", "Must be 1 to 2,000 characters."),
                                                ("to", "Not permitted with an account token.")]))
        let agent = try message(#"{"key_id": "\#(key.id)", "text": "\#(String(repeating: "x", count: 2_001))"}"#, apiKey(key.secret))
        #expect(agent.text == validationBody([("key_id", "Not permitted with an API key."), ("text", "Must be 1 to 2,000 characters."),
                                              ("to", "Required.")]))
        let toSelf = try message(#"{"to": "Claude Code", "text": "hi"}"#, apiKey(key.secret))
        #expect(toSelf.text == errorBody("not_found", "Key not found."))
        let task = try message(#"{"key_id": "\#(key.id)", "text": "hi", "task_id": "tsk_01arz3ndektsv4rrffq69g5fav"}"#, bearer(token))
        #expect(task.text == errorBody("not_found", "Task not found."))
    }

    @Test func anAgentWritesToAnotherAgentByLabelAndSeesTheAgents() throws {
        let other = try api.createKey(token: token, label: "Cursor")
        let sent = try message(#"{"to": "Cursor", "text": "The API is ready for you."}"#, apiKey(key.secret))
        #expect(sent.status == 201)
        #expect(try sent.json()["from"] == JSON.object(JSONObject([
            ("type", .string("agent")), ("key_id", .string(key.id)), ("label", .string("Claude Code")),
        ])))
        let agents = try api.send("GET", "/v1/agents", [apiKey(other.secret), ("X-Relaydeck-Host", "studio-mac")])
        #expect(agents.text == #"{"agents":[{"key_id":"\#(other.id)","label":"Cursor","is_self":true,"last_client":null,"#
            + #""last_used_at":1760000000.0,"host":"studio-mac"},{"key_id":"\#(key.id)","label":"Claude Code","is_self":false,"#
            + #""last_client":null,"last_used_at":1760000000.0,"host":null}]}"#)
    }

    @Test func theSixtyFirstMessageInAnHourIsRateLimited() throws {
        for index in 0..<60 {
            #expect(try message(#"{"key_id": "\#(key.id)", "text": "m\#(index)"}"#, bearer(token)).status == 201)
        }
        let limited = try message(#"{"key_id": "\#(key.id)", "text": "one more"}"#, bearer(token))
        #expect(limited.status == 429 && limited.header("Retry-After") == "60")
        // Another sender has its own hour.
        let other = try api.createKey(token: token, label: "Cursor")
        #expect(try message(#"{"to": "\#(key.id)", "text": "hi"}"#, apiKey(other.secret)).status == 201)
        api.advanceLoop(seconds: 60)
        #expect(try message(#"{"key_id": "\#(key.id)", "text": "later"}"#, bearer(token)).status == 201)
    }
}
