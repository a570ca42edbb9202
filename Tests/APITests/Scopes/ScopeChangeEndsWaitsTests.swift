@testable import API
import Clock
import HTTP
import HTTPTestSupport
import JSON
import Relaydeck
import Testing

/// Taking a scope from a key ends, at once, the calls it has waiting that need that scope
/// (issue 24: a scope change takes effect at once): with the answer a new request of the key
/// gets now (REST's `403 insufficient_scope`, an MCP tool error), and an activity entry. Its
/// other waiting calls go on.
@Suite struct ScopeChangeEndsWaitsTests {
    let api: APIServer
    let token: String
    let secret: String
    let keyID: String

    init() throws {
        api = try APIServer()
        token = try api.accountToken()
        secret = try api.keySecret(token: token)
        keyID = try api.keyID(secret: secret)
    }

    private func send(_ method: String, _ target: String, token: String, _ body: String = "") -> TestResponse? {
        let client = api.loopback.connect()
        client.send("\(method) \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return api.loopback.response(client)
    }

    private func get(_ target: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\n\r\n"
    }

    private func mcpRequest(_ tool: String, _ arguments: String) -> String {
        let body = #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments),"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(secret)\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            + "Mcp-Method: tools/call\r\nMcp-Name: \(tool)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    private func parked(_ request: String) -> TestClient {
        let client = api.loopback.connect()
        let before = api.handler.waitingCount
        client.send(request)
        api.loopback.pump { api.handler.waitingCount == before + 1 }
        return client
    }

    private func ask() throws -> String {
        let text = send("POST", "/v1/questions", token: secret, #"{"prompt": "Deploy?"}"#)?.bodyText ?? ""
        return try #require(try JSONParser.parse(Array(text.utf8))["id"]?.stringValue)
    }

    private func setScopes(_ names: String) {
        #expect(send("PATCH", "/v1/keys/\(keyID)", token: token, #"{"scopes": \#(names)}"#)?.status == 200)
    }

    @Test func losingInboxEndsTheInboxWaitWithTheRefusalAndTheQuestionWaitGoesOn() throws {
        let id = try ask()
        let inbox = parked(get("/v1/inbox?wait=50"))
        let question = parked(get("/v1/questions/\(id)?wait=50"))
        let started = api.loopback.clock.now
        setScopes(#"["questions", "tasks:read"]"#)
        let ended = try #require(api.loopback.response(inbox))
        #expect(api.loopback.clock.now == started)
        #expect(ended.status == 403)
        let refusal = { (what: String) in
            #"{"error":{"code":"insufficient_scope","message":"The key lacks the scope inbox, which \#(what) needs. The person can give the key this scope in the web console."}}"#
        }
        #expect(ended.bodyText == refusal("this waiting call"))
        // A new request is refused the same way (for the route, in its words).
        #expect(send("GET", "/v1/inbox?wait=50", token: secret)?.bodyText == refusal("this route"))
        // The question's wait still holds, and answers when the person does.
        api.loopback.pump(rounds: 20)
        #expect(!question.hasCompleteResponse && api.handler.waitingCount == 1)
        #expect(send("POST", "/v1/questions/\(id)/answer", token: token, #"{"answer": "Yes"}"#)?.status == 200)
        let answered = try #require(api.loopback.response(question))
        #expect(answered.status == 200 && answered.bodyText.contains(#""status":"answered""#))
        // The ended call has its entry, with the refusal.
        let entry = try #require(api.records.first { $0.parked && $0.status == 403 })
        #expect(entry.hasEntry && entry.code == "insufficient_scope")
    }

    @Test func losingQuestionsEndsWaitingMCPToolsWithAToolError() throws {
        let id = try ask()
        let answerWaiter = parked(mcpRequest("get_answer", #"{"question_id": "\#(id)", "wait_seconds": 50}"#))
        let inboxWaiter = parked(mcpRequest("check_inbox", #"{"wait_seconds": 50}"#))
        setScopes(#"["inbox"]"#)
        let ended = try #require(api.loopback.response(answerWaiter))
        #expect(ended.status == 200)
        let result = try #require(try JSONParser.parse(ended.body)["result"])
        #expect(result["isError"] == .bool(true))
        #expect(result["_meta"]?["relaydeck/code"]?.stringValue == "insufficient_scope")
        #expect(MCPClient.text(result)
            == "Error insufficient_scope: The key lacks the scope questions, which this waiting call needs. The person can give the key this scope in the web console.")
        api.loopback.pump(rounds: 20)
        #expect(!inboxWaiter.hasCompleteResponse && api.handler.waitingCount == 1)
    }

    @Test func aChangeThatKeepsTheScopeOrOnlyRenamesEndsNothing() throws {
        let waiter = parked(get("/v1/inbox?wait=50"))
        setScopes(#"["inbox"]"#)
        #expect(send("PATCH", "/v1/keys/\(keyID)", token: token, #"{"label": "Renamed"}"#)?.status == 200)
        api.loopback.pump(rounds: 20)
        #expect(!waiter.hasCompleteResponse && api.handler.waitingCount == 1)
        api.loopback.advance(by: .seconds(51))
        #expect(api.loopback.response(waiter)?.bodyText == #"{"items":[],"unread":0}"#)
    }

    @Test func anotherKeyLosingTheScopeLeavesThisKeysWaitAlone() throws {
        let other = try api.keySecret(token: token, label: "Other")
        let otherID = try api.keyID(secret: other)
        let waiter = parked(get("/v1/inbox?wait=50"))
        #expect(send("PATCH", "/v1/keys/\(otherID)", token: token, #"{"scopes": ["notify"]}"#)?.status == 200)
        api.loopback.pump(rounds: 20)
        #expect(!waiter.hasCompleteResponse && api.handler.waitingCount == 1)
    }
}
