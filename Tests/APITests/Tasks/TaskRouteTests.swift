import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// `rest-api.md#tasks`: the routes with both credential types.
@Suite struct TaskRouteTests {
    let api: APIHarness
    let token: String
    let key: (id: String, secret: String)

    init() throws {
        api = try APIHarness()
        token = try api.createAccount().token
        key = try api.createKey(token: token)
    }

    /// Creates a task with the API key and returns its JSON object.
    func create(_ body: String = #"{"title": "Write tests"}"#) throws -> JSON {
        let answer = try api.send("POST", "/v1/tasks", [apiKey(key.secret)], body: body)
        try #require(answer.status == 201, "\(answer.text)")
        return try answer.json()
    }

    @Test func anAgentCreatesATaskWithTheDefaultsAndItsHost() throws {
        api.clock.wallMillis = 1_760_112_000_412
        let answer = try api.send("POST", "/v1/tasks", [apiKey(key.secret), ("X-Relaydeck-Host", "  studio-mac ")],
                                  body: #"{"title": "  Write\n tests "}"#)
        #expect(answer.status == 201)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        let id = try #require(try answer.json()["id"]?.stringValue)
        let expected = taskJSON(id: id, keyID: key.id, title: "Write tests", source: "agent", createdAt: "1760112000.412",
                                seenAt: "1760112000.412", host: #""studio-mac""#)
        #expect(answer.text == expected)
        #expect(try api.send("GET", "/v1/tasks/\(id)", [apiKey(key.secret)]).text == expected)
        #expect(try api.send("GET", "/v1/tasks/\(id)", [bearer(token)]).text == expected)
        #expect(try api.send("GET", "/v1/tasks", [bearer(token)]).text == #"{"tasks":[\#(expected)],"next_cursor":null}"#)
    }

    @Test func thePersonCreatesATaskForAKeyOfTheAccount() throws {
        let answer = try api.send("POST", "/v1/tasks", [bearer(token), ("X-Relaydeck-Host", "studio-mac")], body: """
            {"key_id": "\(key.id)", "title": "Ship", "description": "Line one\\n\\n  line two", "status": "done", \
            "priority": "urgent", "notify": false, "progress": 5, "status_note": ""}
            """)
        #expect(answer.status == 201)
        let id = try #require(try answer.json()["id"]?.stringValue)
        #expect(answer.text == taskJSON(id: id, keyID: key.id, title: "Ship", description: #"Line one\n\n  line two"#,
                                        status: "done", priority: "urgent", notify: false, progress: "100",
                                        completedAt: "1760000000.0"))
        let keys = try api.send("GET", "/v1/keys", [bearer(token)]).json()
        #expect(keys["keys"]?.arrayValue?.first?["counts"]?["done"]?.int64Value == 1)
    }

    @Test func keyIDIsNecessaryForTheAccountAndRefusedForAKey() throws {
        let missing = try api.send("POST", "/v1/tasks", [bearer(token)], body: #"{"title": "x"}"#)
        #expect(missing.text == validationBody([("key_id", "Required.")]))
        let theirs = try api.createKey(token: try api.createAccount().token)
        for id in [theirs.id, "key_01arz3ndektsv4rrffq69g5fav"] {
            let foreign = try api.send("POST", "/v1/tasks", [bearer(token)], body: #"{"key_id": "\#(id)", "title": "x"}"#)
            #expect(foreign.status == 404)
            #expect(foreign.text == errorBody("not_found", "Key not found."))
        }
        let withKey = try api.send("POST", "/v1/tasks", [apiKey(key.secret)], body: #"{"key_id": "\#(key.id)", "title": "x"}"#)
        #expect(withKey.text == validationBody([("key_id", "Not permitted with an API key.")]))
    }

    @Test func everyBadFieldIsNamedAtOnce() throws {
        let answer = try api.send("POST", "/v1/tasks", [apiKey(key.secret)], body: """
            {"title": "", "description": 5, "status": "open", "priority": "HIGH", "notify": "yes", "progress": 101, \
            "status_note": "\(String(repeating: "x", count: 141))", "extra": 1}
            """)
        #expect(answer.text == validationBody([
            ("description", "Must be a string."), ("extra", "Unknown field."), ("notify", "Must be true or false."),
            ("priority", "Must be one of: low, medium, high, urgent."), ("progress", "Must be an integer from 0 to 100."),
            ("status", "Must be one of: todo, in_progress, done, cancelled."), ("status_note", "Must be 0 to 140 characters."),
            ("title", "Must be 1 to 200 characters."),
        ]))
        #expect(try api.send("POST", "/v1/tasks", [apiKey(key.secret)], body: "{}").text == validationBody([("title", "Required.")]))
    }

    @Test func patchTellsAbsentFromNull() throws {
        let id = try #require(try create(#"{"title": "t", "progress": 30, "status_note": "busy"}"#)["id"]?.stringValue)
        api.clock.advance(millis: 2_000)
        let cleared = try api.send("PATCH", "/v1/tasks/\(id)", [bearer(token)], body: #"{"progress": null, "status_note": null}"#)
        #expect(cleared.status == 200)
        let json = try cleared.json()
        #expect(json["progress"] == .null && json["status_note"] == .null && json["title"]?.stringValue == "t")
        #expect(json["updated_at"]?.doubleValue == 1_760_000_002.0)
        let refused = try api.send("PATCH", "/v1/tasks/\(id)", [bearer(token)],
                                   body: #"{"title": null, "description": null, "status": null, "priority": null, "notify": null}"#)
        #expect(refused.text == validationBody([
            ("description", "Must be a string."), ("notify", "Must be true or false."),
            ("priority", "Must be one of: low, medium, high, urgent."),
            ("status", "Must be one of: todo, in_progress, done, cancelled."), ("title", "Must be a string."),
        ]))
        api.clock.advance(millis: 2_000)
        let same = try api.send("PATCH", "/v1/tasks/\(id)", [apiKey(key.secret)], body: #"{"title": "t"}"#)
        #expect(same.text == cleared.text)
    }

    @Test func anotherKeysTaskIsNotFound() throws {
        let id = try #require(try create()["id"]?.stringValue)
        let other = try api.createKey(token: token, label: "other")
        let stranger = try api.createAccount().token
        let notFound = errorBody("not_found", "Task not found.")
        for credential in [apiKey(other.secret), bearer(stranger)] {
            #expect(try api.send("GET", "/v1/tasks/\(id)", [credential]).text == notFound)
            #expect(try api.send("PATCH", "/v1/tasks/\(id)", [credential], body: #"{"notify": false}"#).text == notFound)
            #expect(try api.send("DELETE", "/v1/tasks/\(id)", [credential]).text == notFound)
            #expect(try api.send("GET", "/v1/tasks", [credential]).text == #"{"tasks":[],"next_cursor":null}"#)
        }
        let deleted = try api.send("DELETE", "/v1/tasks/\(id)", [bearer(token)])
        #expect(deleted.status == 204 && deleted.response.body.isEmpty)
        #expect(try api.send("GET", "/v1/tasks/\(id)", [apiKey(key.secret)]).text == notFound)
    }

    @Test func theListPagesAndRefusesBadParameters() throws {
        var ids: [String] = []
        for index in 0..<5 {
            ids.append(try #require(try create(#"{"title": "t\#(index)"}"#)["id"]?.stringValue))
            api.clock.advance(millis: 1)
        }
        var seen: [String] = []
        var target = "/v1/tasks?limit=2"
        while true {
            let page = try api.send("GET", target, [bearer(token)]).json()
            seen += page["tasks"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            guard let next = page["next_cursor"]?.stringValue else { break }
            target = "/v1/tasks?limit=2&cursor=\(next)"
        }
        #expect(seen == ids.reversed())
        let bad = try api.send("GET", "/v1/tasks?key_id=\(key.id)&status=todo,open&priority=&limit=501&cursor=nope",
                               [apiKey(key.secret)])
        #expect(bad.text == validationBody([
            ("cursor", "Must be a next_cursor of this list."), ("key_id", "Not permitted with an API key."),
            ("limit", "Must be an integer from 1 to 500."), ("priority[0]", "Must be one of: low, medium, high, urgent."),
            ("status[1]", "Must be one of: todo, in_progress, done, cancelled."),
        ]))
        let filtered = try api.send("GET", "/v1/tasks?key_id=\(key.id)&status=todo,done&priority=medium&limit=1", [bearer(token)]).json()
        #expect(filtered["tasks"]?.arrayValue?.count == 1 && filtered["next_cursor"]?.stringValue != nil)
    }
}

/// The exact Task object; the optional fields are JSON text (`null`, `"studio-mac"`).
func taskJSON(id: String, keyID: String, title: String, description: String = "", status: String = "todo",
              priority: String = "medium", notify: Bool = true, progress: String = "null", statusNote: String = "null",
              source: String = "app", createdAt: String = "1760000000.0", updatedAt: String? = nil,
              completedAt: String = "null", seenAt: String = "null", host: String = "null") -> String {
    #"{"id":"\#(id)","key_id":"\#(keyID)","title":"\#(title)","description":"\#(description)","status":"\#(status)","#
        + #""priority":"\#(priority)","notify":\#(notify),"progress":\#(progress),"status_note":\#(statusNote),"#
        + #""source":"\#(source)","created_at":\#(createdAt),"updated_at":\#(updatedAt ?? createdAt),"#
        + #""completed_at":\#(completedAt),"seen_at":\#(seenAt),"host":\#(host)}"#
}
