@testable import API
import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// A key without the scope a route needs is `403 insufficient_scope`, with the scope named
/// (issue 24); with it, the route answers as before. The account token keeps every power.
@Suite struct ScopeEnforcementTests {
    let api: APIHarness
    let token: String
    let other: (id: String, secret: String)

    init() throws {
        var configuration = APIConfiguration()
        configuration.metricsToken = Array("metrics-secret".utf8)
        api = try APIHarness(configuration: configuration)
        token = try api.createAccount().token
        other = try api.createKey(token: token, label: "Other")
    }

    /// A key of the account holding exactly `scopes`.
    private func key(_ scopes: [Scope], label: String = "Agent") throws -> (id: String, secret: String) {
        let names = scopes.map { #""\#($0.rawValue)""# }.joined(separator: ",")
        let answer = try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "\#(label)", "scopes": [\#(names)]}"#)
        try #require(answer.status == 201)
        let json = try answer.json()
        return (try #require(json["key"]?["id"]?.stringValue), try #require(json["secret"]?.stringValue))
    }

    static func refusal(_ scope: String) -> String {
        errorBody("insufficient_scope",
                  "The key lacks the scope \(scope), which this route needs. The person can give the key this scope in the web console.")
    }

    /// One request of each route a key may call, with the status it gets when allowed.
    private var requests: [(method: String, target: String, body: String?, scope: Scope, allowed: Int)] {
        [
            ("GET", "/v1/tasks", nil, .tasksRead, 200),
            ("GET", "/v1/tasks/tsk_unknown", nil, .tasksRead, 404),
            ("POST", "/v1/tasks", #"{"title": "Write tests"}"#, .tasksWrite, 201),
            ("PATCH", "/v1/tasks/tsk_unknown", #"{"progress": 10}"#, .tasksWrite, 404),
            ("DELETE", "/v1/tasks/tsk_unknown", nil, .tasksWrite, 404),
            ("GET", "/v1/questions", nil, .questions, 200),
            ("POST", "/v1/questions", #"{"prompt": "Deploy?"}"#, .questions, 201),
            ("GET", "/v1/questions/qst_unknown", nil, .questions, 404),
            ("DELETE", "/v1/questions/qst_unknown", nil, .questions, 404),
            ("GET", "/v1/inbox", nil, .inbox, 200),
            ("POST", "/v1/messages", #"{"to": "\#(other.id)", "text": "Rebase first."}"#, .messages, 201),
            ("GET", "/v1/agents", nil, .messages, 200),
        ]
    }

    @Test(arguments: Scope.allCases)
    func aKeyWithoutOneScopeIsRefusedExactlyTheRoutesThatNeedIt(missing: Scope) throws {
        let agent = try key(Scope.allCases.filter { $0 != missing })
        for request in requests {
            let answer = try api.send(request.method, request.target, [bearer(agent.secret)], body: request.body)
            if request.scope == missing {
                #expect(answer.status == 403, "\(request.method) \(request.target)")
                #expect(answer.headers == ["Content-Type: application/json"])
                #expect(answer.text == Self.refusal(missing.rawValue))
            } else {
                #expect(answer.status == request.allowed, "\(request.method) \(request.target): \(answer.text)")
            }
        }
    }

    @Test func aKeyWithOneScopeReachesOnlyItsRoutes() throws {
        let agent = try key([.tasksRead])
        for request in requests {
            let answer = try api.send(request.method, request.target, [apiKey(agent.secret)], body: request.body)
            #expect(answer.status == (request.scope == .tasksRead ? request.allowed : 403), "\(request.method) \(request.target)")
        }
    }

    @Test func theAccountTokenKeepsEveryPower() throws {
        let agent = try key([.notify])
        let created = try api.send("POST", "/v1/tasks", [bearer(token)], body: #"{"key_id": "\#(agent.id)", "title": "For the agent"}"#)
        #expect(created.status == 201)
        let task = try #require(try created.json()["id"]?.stringValue)
        #expect(try api.send("GET", "/v1/tasks", [bearer(token)]).status == 200)
        #expect(try api.send("PATCH", "/v1/tasks/\(task)", [bearer(token)], body: #"{"priority": "high"}"#).status == 200)
        #expect(try api.send("GET", "/v1/questions", [bearer(token)]).status == 200)
        #expect(try api.send("POST", "/v1/messages", [bearer(token)], body: #"{"key_id": "\#(agent.id)", "text": "Hi"}"#).status == 201)
        #expect(try api.send("DELETE", "/v1/tasks/\(task)", [bearer(token)]).status == 204)
        // The agent's own inbox got the account's doings, whatever the key may read itself.
        #expect(try api.send("GET", "/v1/keys/\(agent.id)/inbox", [bearer(token)]).json()["unread"]?.int64Value == 4)
    }

    @Test func theScopeIsCheckedBeforeTheBodyAndAfterTheCredentialsType() throws {
        let reader = try key([.tasksRead])
        // A body the route would refuse with 422 is not looked at.
        let invalid = try api.send("POST", "/v1/tasks", [bearer(reader.secret)], body: #"{"title": 7, "bogus": true}"#)
        #expect(invalid.text == Self.refusal("tasks:write"))
        // An account route is the credential type's 403, whatever the scopes.
        #expect(try api.send("GET", "/v1/keys", [bearer(reader.secret)]).text
            == errorBody("forbidden", "An API key cannot use this route."))
    }

    @Test func theScopeRefusalComesBeforeTheRateLimitAndStillCounts() throws {
        var configuration = APIConfiguration()
        configuration.requestsPerMinute = 2
        let api = try APIHarness(configuration: configuration)
        let token = try api.createAccount().token
        let reader = try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "R", "scopes": ["tasks:read"]}"#)
        let secret = try #require(try reader.json()["secret"]?.stringValue)
        #expect(try api.send("POST", "/v1/tasks", [bearer(secret)], body: "{}").status == 403)
        #expect(try api.send("GET", "/v1/tasks", [bearer(secret)]).status == 200)
        #expect(try api.send("POST", "/v1/tasks", [bearer(secret)], body: "{}").status == 403)
        #expect(try api.send("GET", "/v1/tasks", [bearer(secret)]).status == 429)
    }

    @Test func removingAScopeHoldsForTheKeysNextRequestAndGivingItBackToo() throws {
        let agent = try key(Scope.allCases)
        #expect(try api.send("GET", "/v1/tasks", [bearer(agent.secret)]).status == 200)
        #expect(try api.send("PATCH", "/v1/keys/\(agent.id)", [bearer(token)], body: #"{"scopes": ["tasks:write"]}"#).status == 200)
        #expect(try api.send("GET", "/v1/tasks", [bearer(agent.secret)]).text == Self.refusal("tasks:read"))
        #expect(try api.send("POST", "/v1/tasks", [bearer(agent.secret)], body: #"{"title": "Still allowed"}"#).status == 201)
        #expect(try api.send("PATCH", "/v1/keys/\(agent.id)", [bearer(token)], body: #"{"scopes": ["tasks:read"]}"#).status == 200)
        #expect(try api.send("GET", "/v1/tasks", [bearer(agent.secret)]).status == 200)
    }

    @Test func aScopeRefusalHasItsActivityEntryAndIsCountedForMetrics() throws {
        let agent = try key([.tasksRead])
        _ = try api.send("POST", "/v1/tasks", [bearer(agent.secret)], body: #"{"title": "No"}"#)
        for _ in 0..<2 {
            api.clock.advance(millis: 1_000)
            _ = try api.send("GET", "/v1/inbox", [bearer(agent.secret)])
        }
        let entries = try api.entries(token: token, keyID: agent.id)
        #expect(entries.map { "\($0["action"]?.stringValue ?? "") \($0["status"]?.stringValue ?? "") \($0["code"]?.stringValue ?? "")" } == [
            "GET /v1/inbox error insufficient_scope", "GET /v1/inbox error insufficient_scope",
            "POST /v1/tasks error insufficient_scope",
        ])
        #expect(entries.last?["message"]?.stringValue
            == "The key lacks the scope tasks:write, which this route needs. The person can give the key this scope in the web console.")
        let metrics = try api.send("GET", "/metrics", [bearer("metrics-secret")]).text
        #expect(metrics.contains(#"relaydeck_scope_refusals_total{scope="tasks:write",surface="rest"} 1"#))
        #expect(metrics.contains(#"relaydeck_scope_refusals_total{scope="inbox",surface="rest"} 2"#))
        #expect(metrics.contains(#"relaydeck_scope_refusals_total{scope="tasks:read",surface="rest"} 0"#))
        #expect(metrics.contains(#"relaydeck_scope_refusals_total{scope="inbox",surface="mcp"} 0"#))
    }
}
