@testable import API
import HTTP
import JSON
import Relaydeck
import Testing

/// `scopes` on `POST /v1/keys` and `PATCH /v1/keys/{key_id}` (issue 24): a list of scope names,
/// every problem in one `422`, nothing half-applied, and only the account may set them.
@Suite struct KeyScopeRouteTests {
    let api: APIHarness
    let token: String

    init() throws {
        api = try APIHarness()
        token = try api.createAccount().token
    }

    static let oneOf = "Must be one of: tasks:read, tasks:write, questions, notify, messages, inbox."

    private func create(_ body: String) throws -> Answer {
        try api.send("POST", "/v1/keys", [bearer(token)], body: body)
    }

    @Test func aKeyMadeWithScopesListsThemInTheCatalogueOrder() throws {
        let answer = try create(#"{"label": "Reader", "scopes": ["inbox", "tasks:read"]}"#)
        #expect(answer.status == 201)
        let json = try answer.json()
        let id = try #require(json["key"]?["id"]?.stringValue)
        let secret = try #require(json["secret"]?.stringValue)
        let key = keyJSON(id: id, label: "Reader", secret: secret, scopes: ["tasks:read", "inbox"])
        #expect(answer.text == #"{"key":\#(key),"secret":"\#(secret)"}"#)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text == #"{"keys":[\#(key)]}"#)
    }

    @Test func aKeyMadeWithoutScopesHoldsEveryScope() throws {
        let answer = try create(#"{"label": "Cursor"}"#)
        #expect(try answer.json()["key"]?["scopes"]?.description
            == #"["tasks:read","tasks:write","questions","notify","messages","inbox"]"#)
    }

    @Test(arguments: [
        (#"["tasks:read", "Tasks:Read"]"#, [("scopes[1]", oneOf)]),
        (#"["TASKS:READ"]"#, [("scopes[0]", oneOf)]),
        (#"["tasks:read "]"#, [("scopes[0]", oneOf)]),
        (#"["tasks"]"#, [("scopes[0]", oneOf)]),
        (#"["admin", "notify", "notify"]"#, [("scopes[0]", oneOf), ("scopes[2]", "Repeats an earlier item.")]),
        (#"["notify", "notify"]"#, [("scopes[1]", "Repeats an earlier item.")]),
        (#"[]"#, [("scopes", "Must have 1 to 6 items.")]),
        (#"["tasks:read", "tasks:write", "questions", "notify", "messages", "inbox", "inbox"]"#, [("scopes", "Must have 1 to 6 items.")]),
        (#"[1, null, true, {}, ["inbox"]]"#, [("scopes[0]", oneOf), ("scopes[1]", oneOf), ("scopes[2]", oneOf), ("scopes[3]", oneOf), ("scopes[4]", oneOf)]),
        (#""tasks:read""#, [("scopes", "Must be an array.")]),
        (#""tasks:read,inbox""#, [("scopes", "Must be an array.")]),
        (#"null"#, [("scopes", "Must be an array.")]),
        (#"{"tasks:read": true}"#, [("scopes", "Must be an array.")]),
    ])
    func invalidScopesAreA422NamingEachItemAndNoKeyIsMade(scopes: String, fields: [(String, String)]) throws {
        let answer = try create(#"{"label": "Agent", "scopes": \#(scopes)}"#)
        #expect(answer.status == 422)
        #expect(answer.text == validationBody(fields))
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text == #"{"keys":[]}"#)
    }

    @Test func aHundredThousandScopesOrAHugeNameAreRefusedWithoutEchoingThem() throws {
        let many = "[" + Array(repeating: #""inbox""#, count: 100_000).joined(separator: ",") + "]"
        let answer = try create(#"{"label": "Agent", "scopes": \#(many)}"#)
        #expect(answer.status == 422)
        #expect(answer.text == validationBody([("scopes", "Must have 1 to 6 items.")]))
        let huge = String(repeating: "tasks:read", count: 80_000)
        let long = try create(#"{"label": "Agent", "scopes": ["\#(huge)"]}"#)
        #expect(long.status == 422)
        #expect(long.text == validationBody([("scopes[0]", Self.oneOf)]))
    }

    @Test func aBadLabelAndBadScopesAreOne422() throws {
        let answer = try create(#"{"label": "", "scopes": ["nope"]}"#)
        #expect(answer.text == validationBody([("label", "Must be 1 to 40 characters."), ("scopes[0]", Self.oneOf)]))
    }

    @Test func patchChangesTheScopesAndTheLabelTogether() throws {
        let key = try api.createKey(token: token, label: "Cursor")
        let answer = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)],
                                  body: #"{"label": "Reader", "scopes": ["tasks:read"]}"#)
        #expect(answer.status == 200)
        let expected = keyJSON(id: key.id, label: "Reader", secret: key.secret, scopes: ["tasks:read"])
        #expect(answer.text == expected)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text == #"{"keys":[\#(expected)]}"#)
        // Scopes alone, and back to every one.
        let back = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)], body: #"{"scopes": \#(allScopes.description)}"#)
        #expect(back.text == keyJSON(id: key.id, label: "Reader", secret: key.secret))
    }

    @Test func aPatchWithBadScopesChangesNothingNotEvenTheLabel() throws {
        let key = try api.createKey(token: token, label: "Cursor")
        for scopes in [#"[]"#, #"["tasks:read", "Tasks:Read"]"#, #"["tasks:read", "tasks:read"]"#, #"null"#] {
            let answer = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)],
                                      body: #"{"label": "Renamed", "scopes": \#(scopes)}"#)
            #expect(answer.status == 422, "\(scopes)")
        }
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text
            == #"{"keys":[\#(keyJSON(id: key.id, label: "Cursor", secret: key.secret))]}"#)
    }

    @Test func anAPIKeyCannotChangeAnyKeyNotEvenItsOwnScopes() throws {
        let key = try api.createKey(token: token, label: "Agent")
        #expect(try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)], body: #"{"scopes": ["tasks:read"]}"#).status == 200)
        let forbidden = errorBody("forbidden", "An API key cannot use this route.")
        for (method, target, body) in [
            ("PATCH", "/v1/keys/\(key.id)", #"{"scopes": \#(allScopes.description)}"#),
            ("POST", "/v1/keys", #"{"label": "Escalated", "scopes": \#(allScopes.description)}"#),
            ("GET", "/v1/keys", ""),
            ("DELETE", "/v1/keys/\(key.id)", ""),
        ] {
            for header in [bearer(key.secret), apiKey(key.secret)] {
                let answer = try api.send(method, target, [header], body: body.isEmpty ? nil : body)
                #expect(answer.status == 403, "\(method) \(target)")
                #expect(answer.text == forbidden)
            }
        }
        let json = try api.send("GET", "/v1/keys", [bearer(token)]).json()
        #expect(json["keys"]?.arrayValue?.count == 1)
        #expect(json["keys"]?.arrayValue?.first?["scopes"]?.description == #"["tasks:read"]"#)
    }

    @Test func aScopeChangeIsAnnouncedAsKeyUpdated() throws {
        let key = try api.createKey(token: token, label: "Agent")
        var seen: [Change] = []
        api.services.hub.subscribe { seen.append($0) }
        _ = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)], body: #"{"scopes": ["notify"]}"#)
        _ = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)], body: #"{"scopes": ["notify"]}"#)
        #expect(seen.count == 1)
        guard case .keyUpdated(let updated)? = seen.first?.event else {
            Issue.record("no key.updated")
            return
        }
        #expect(updated.scopes == ScopeSet([.notify]))
    }
}
