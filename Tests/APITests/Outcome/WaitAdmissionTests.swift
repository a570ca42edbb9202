@testable import API
import HTTPTestSupport
import JSON
import Testing

/// `Wakeups.admission` is the one decision on who may park one more call, for REST's
/// `deliver` and the MCP tools alike: 32 per key (REST and MCP calls of the key in one
/// budget), 64 for the account's token and web sessions together; an ended call frees its
/// place. Driven through `handle` over loopback sockets, as a client would.
@Suite struct WaitAdmissionTests {
    let api: APIServer
    let token: String
    let secret: String

    init() throws {
        api = try APIServer()
        token = try api.accountToken()
        secret = try api.keySecret(token: token)
    }

    private func mcpCall(_ tool: String, _ arguments: String, secret: String) -> String {
        let body = #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments),"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(secret)\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            + "Mcp-Method: tools/call\r\nMcp-Name: \(tool)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    private var restWait: String { "GET /v1/inbox?wait=50&mark_read=false HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\n\r\n" }
    private var mcpWait: String { mcpCall("check_inbox", #"{"wait_seconds": 50, "mark_read": false}"#, secret: secret) }

    /// A client whose request is parked now.
    @discardableResult
    private func parked(_ request: String) -> TestClient {
        let client = api.loopback.connect()
        let before = api.handler.waitingCount
        client.send(request)
        api.loopback.pump { api.handler.waitingCount == before + 1 }
        #expect(api.handler.waitingCount == before + 1, "the call did not park")
        return client
    }

    private func answer(_ request: String) throws -> TestResponse {
        let client = api.loopback.connect()
        client.send(request)
        return try #require(api.loopback.response(client))
    }

    private func post(_ target: String, _ header: String, _ body: String) throws -> TestResponse {
        try answer("POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    private func expectRESTRefusal(_ request: String) throws {
        let refused = try answer(request)
        #expect(refused.status == 429 && refused.header("Retry-After") == "1")
        #expect(refused.bodyText.contains(#""code":"rate_limited""#))
    }

    /// The tool error of a key's 33rd waiting call, its message written from the catalogue.
    private func expectToolRefusal(_ request: String) throws {
        let refused = try answer(request)
        #expect(refused.status == 200)
        let message = try JSONParser.parse(refused.body)
        #expect(message["result"]?["isError"]?.boolValue == true)
        #expect(message["result"]?["_meta"]?["relaydeck/code"]?.stringValue == "rate_limited")
        #expect(refused.bodyText.contains("A key can have \(Limits.waitingCallsPerKey) calls that wait at the same time."))
    }

    @Test func theThirtyThirdRESTWaitOfAKeyIsRefusedOnRESTAndOnMCP() throws {
        let clients = (0..<Limits.waitingCallsPerKey).map { _ in parked(restWait) }
        #expect(api.handler.waitingCount == 32)
        try expectRESTRefusal(restWait)
        try expectToolRefusal(mcpWait)
        #expect(api.handler.waitingCount == 32)
        _ = clients
    }

    @Test func theThirtyThirdMCPWaitOfAKeyIsRefusedOnMCPAndOnREST() throws {
        let clients = (0..<32).map { _ in parked(mcpWait) }
        try expectToolRefusal(mcpWait)
        try expectRESTRefusal(restWait)
        #expect(api.handler.waitingCount == 32)
        _ = clients
    }

    @Test func restAndMCPCallsOfOneKeyShareOneBudgetAndAnEndedCallFreesItsPlace() throws {
        let keyID = try api.keyID(secret: secret)
        var clients = (0..<16).map { _ in parked(restWait) } + (0..<16).map { _ in parked(mcpWait) }
        try expectRESTRefusal(restWait)
        try expectToolRefusal(mcpWait)
        // Another key of the same account has its own 32.
        let other = try api.keySecret(token: token, label: "Other")
        let othersWait = parked(mcpCall("check_inbox", #"{"wait_seconds": 50}"#, secret: other))
        #expect(api.handler.waitingCount == 33)
        // A REST call goes away: an MCP call takes its place, and then the key is full again.
        clients.removeFirst().close()
        api.loopback.pump { api.handler.waitingCount == 32 }
        clients.append(parked(mcpWait))
        try expectRESTRefusal(restWait)
        // A message to the key answers all 32 of its calls (none marks it read), REST and MCP:
        // each frees its place.
        let sent = try post("/v1/messages", "Authorization: Bearer \(token)", #"{"key_id": "\#(keyID)", "text": "Go on."}"#)
        #expect(sent.status == 201, "\(sent.bodyText)")
        api.loopback.pump { api.handler.waitingCount == 1 }
        #expect(api.handler.waitingCount == 1)
        for client in clients { #expect(api.loopback.response(client)?.status == 200) }
        #expect(try answer("GET /v1/inbox HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\n\r\n").status == 200)
        let again = (0..<32).map { index in parked(index % 2 == 0 ? restWait : mcpWait) }
        try expectToolRefusal(mcpWait)
        _ = (othersWait, again)
    }

    @Test func theAccountsSixtyFifthWaitAcrossItsTokenAndSessionsIsRefused() throws {
        let made = try post("/web/session", "User-Agent: Test/1.0", #"{"account_token": "\#(token)"}"#)
        #expect(made.status == 201, "\(made.bodyText)")
        let cookie = String(try #require(made.header("Set-Cookie")).prefix { $0 != ";" })
        let question = try post("/v1/questions", "Authorization: Bearer \(secret)", #"{"prompt": "Deploy?"}"#)
        let id = try #require(try JSONParser.parse(question.body)["id"]?.stringValue)
        let byToken = "GET /v1/questions/\(id)?wait=50 HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n"
        let bySession = "GET /v1/questions/\(id)?wait=50 HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n"
        var clients = (0..<32).map { _ in parked(byToken) } + (0..<32).map { _ in parked(bySession) }
        #expect(api.handler.waitingCount == Limits.waitingCallsPerAccount)
        try expectRESTRefusal(bySession)
        try expectRESTRefusal(byToken)
        // The key's calls are the key's: the account's full budget does not refuse them.
        let keysWait = parked(restWait)
        clients.removeFirst().close()
        api.loopback.pump { api.handler.waitingCount == 64 }
        clients.append(parked(bySession))
        try expectRESTRefusal(byToken)
        _ = keysWait
    }
}
