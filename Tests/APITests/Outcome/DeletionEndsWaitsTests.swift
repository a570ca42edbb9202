@testable import API
import Clock
import HTTP
import HTTPTestSupport
import JSON
import Relaydeck
import SQLite
import Testing

/// Deleting a key or an account ends the calls its credentials have waiting, at once (no
/// time passes on the loop's clock), with the `401` a request with that credential gets now;
/// MCP's waiting tools answer what `/mcp` gives a wrong key, and a wait that fails is still a
/// JSON-RPC answer. The account's own waiting calls are capped like a key's.
@Suite struct DeletionEndsWaitsTests {
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

    private func mcpRequest(_ tool: String, _ arguments: String, secret: String) -> String {
        let body = #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments),"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(secret)\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            + "Mcp-Method: tools/call\r\nMcp-Name: \(tool)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// A client whose request is parked now.
    private func parked(_ request: String) -> TestClient {
        let client = api.loopback.connect()
        let before = api.handler.waitingCount
        client.send(request)
        api.loopback.pump { api.handler.waitingCount == before + 1 }
        return client
    }

    private func get(_ target: String, token: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n"
    }

    private func ask() throws -> String {
        let text = send("POST", "/v1/questions", token: secret, #"{"prompt": "Deploy?"}"#)?.bodyText ?? ""
        return try #require(try JSONParser.parse(Array(text.utf8))["id"]?.stringValue)
    }

    /// The answer `request` gets now, sent fresh.
    private func fresh(_ request: String) -> TestResponse? {
        let client = api.loopback.connect()
        client.send(request)
        return api.loopback.response(client)
    }

    /// The answer of a call ended by a deletion: at once, and the same as a new request.
    private func expectEndedLikeAWrongCredential(_ client: TestClient, _ request: String, started: Instant) throws {
        let answer = try #require(api.loopback.response(client))
        #expect(api.loopback.clock.now == started)
        #expect(answer.status == 401)
        #expect(answer.bodyText == #"{"error":{"code":"unauthorized","message":"The credential is missing or wrong."}}"#)
        let now = try #require(fresh(request))
        #expect(now.status == answer.status && now.body == answer.body)
        #expect(api.handler.waitingCount == 0)
    }

    @Test func deletingAKeyEndsItsInboxAndQuestionWaitsAtOnceWith401() throws {
        let id = try ask()
        let inbox = get("/v1/inbox?wait=50", token: secret)
        let question = get("/v1/questions/\(id)?wait=50", token: secret)
        let inboxWaiter = parked(inbox)
        let questionWaiter = parked(question)
        let started = api.loopback.clock.now
        #expect(send("DELETE", "/v1/keys/\(keyID)", token: token)?.status == 204)
        try expectEndedLikeAWrongCredential(inboxWaiter, inbox, started: started)
        try expectEndedLikeAWrongCredential(questionWaiter, question, started: started)
        // The key's log goes with it: an ended call writes no entry.
        #expect(api.records.filter(\.parked).allSatisfy { !$0.hasEntry && $0.status == 401 })
    }

    @Test func deletingAKeyEndsItsWaitingMCPToolsWithTheTransportsAnswerToAWrongKey() throws {
        let id = try ask()
        let checkInbox = mcpRequest("check_inbox", #"{"wait_seconds": 50}"#, secret: secret)
        let getAnswer = mcpRequest("get_answer", #"{"question_id": "\#(id)", "wait_seconds": 50}"#, secret: secret)
        let inboxWaiter = parked(checkInbox)
        let answerWaiter = parked(getAnswer)
        let started = api.loopback.clock.now
        #expect(send("DELETE", "/v1/keys/\(keyID)", token: token)?.status == 204)
        // `mcp.md#connect`: no API key, or a wrong one, is `401` with the REST error body.
        try expectEndedLikeAWrongCredential(inboxWaiter, checkInbox, started: started)
        try expectEndedLikeAWrongCredential(answerWaiter, getAnswer, started: started)
    }

    @Test func deletingAnotherKeyOfTheAccountLeavesTheWaitAlone() throws {
        let other = try api.keySecret(token: token, label: "Other")
        let otherID = try api.keyID(secret: other)
        #expect(otherID != keyID)
        let waiter = parked(get("/v1/inbox?wait=50", token: secret))
        let otherWaiter = parked(get("/v1/inbox?wait=50", token: other))
        #expect(send("DELETE", "/v1/keys/\(otherID)", token: token)?.status == 204)
        #expect(api.loopback.response(otherWaiter)?.status == 401)
        api.loopback.pump(rounds: 20)
        #expect(!waiter.hasCompleteResponse && api.handler.waitingCount == 1)
        // A deletion that fails (no such key) ends nothing either.
        #expect(send("DELETE", "/v1/keys/key_01J00000000000000000000000", token: token)?.status == 404)
        api.loopback.pump(rounds: 20)
        #expect(!waiter.hasCompleteResponse && api.handler.waitingCount == 1)
        api.loopback.advance(by: .seconds(51))
        #expect(api.loopback.response(waiter)?.status == 200)
    }

    @Test func deletingTheAccountEndsTheWaitsOfItsTokenAndEveryKey() throws {
        let other = try api.keySecret(token: token, label: "Other")
        let id = try ask()
        let byToken = get("/v1/questions/\(id)?wait=50", token: token)
        let byKey = get("/v1/inbox?wait=50", token: secret)
        let byOther = mcpRequest("check_inbox", #"{"wait_seconds": 50}"#, secret: other)
        let waiters = [(parked(byToken), byToken), (parked(byKey), byKey), (parked(byOther), byOther)]
        // Another account's wait goes on.
        let stranger = try api.accountToken()
        let strangersKey = try api.keySecret(token: stranger)
        let strangersWait = parked(get("/v1/inbox?wait=50", token: strangersKey))
        let started = api.loopback.clock.now
        #expect(send("DELETE", "/v1/account", token: token)?.status == 204)
        for (client, request) in waiters {
            let answer = try #require(api.loopback.response(client))
            #expect(api.loopback.clock.now == started)
            #expect(answer.status == 401 && answer.bodyText.contains(#""code":"unauthorized""#))
            #expect(fresh(request)?.body == answer.body)
        }
        #expect(!strangersWait.hasCompleteResponse && api.handler.waitingCount == 1)
    }

    @Test func aDeletionThatRollsBackEndsNothing() async throws {
        let waiter = parked(get("/v1/inbox?wait=50", token: secret))
        let services = api.handler.context.services
        // The deletion inside a transaction that is then rolled back, as a turn whose COMMIT
        // failed: the unit of work drops its change, and the key was never deleted.
        let work = try #require(try services.sqlite?.tryBeginWork())
        let accountIDs = api.records.compactMap { $0.principal?.accountID }
        let accountID = try #require(accountIDs.first)
        try await services.keys.delete(accountID: accountID, keyID: keyID)
        work.rollBack()
        api.loopback.pump(rounds: 20)
        #expect(!waiter.hasCompleteResponse && api.handler.waitingCount == 1)
        #expect(send("POST", "/v1/messages", token: token, #"{"key_id":"\#(keyID)","text":"Still here."}"#)?.status == 201)
        let answer = try #require(api.loopback.response(waiter))
        #expect(answer.status == 200 && answer.bodyText.contains("Still here."))
    }

    @Test func aGetAnswerWhoseQuestionDisappearsAnswersAToolErrorNotARestBody() throws {
        let id = try ask()
        let waiter = parked(mcpRequest("get_answer", #"{"question_id": "\#(id)", "wait_seconds": 5}"#, secret: secret))
        // Gone under the wait (as a purge would remove it): the expiry's read finds nothing.
        _ = try api.store.write { db in try db.statement("DELETE FROM questions WHERE id = ?").run(.text(id)) }
        api.loopback.advance(by: .seconds(6))
        let answer = try #require(api.loopback.response(waiter))
        #expect(answer.status == 200)
        let message = try JSONParser.parse(answer.body)
        #expect(message["jsonrpc"]?.stringValue == "2.0" && message["error"] == nil)
        #expect(message["result"]?["isError"]?.boolValue == true)
        #expect(message["result"]?["_meta"]?["relaydeck/code"]?.stringValue == "not_found")
    }

    @Test func theAccountsOwnWaitingCallsAreCappedAt64AndAnEndedOneFreesItsPlace() throws {
        let id = try ask()
        var clients: [TestClient] = []
        for _ in 0..<Limits.waitingCallsPerAccount {
            let client = api.loopback.connect()
            client.send(get("/v1/questions/\(id)?wait=50", token: token))
            clients.append(client)
        }
        api.loopback.pump { api.handler.waitingCount == Limits.waitingCallsPerAccount }
        #expect(api.handler.waitingCount == 64)
        let refused = try #require(fresh(get("/v1/questions/\(id)?wait=50", token: token)))
        #expect(refused.status == 429 && refused.header("Retry-After") == "1")
        #expect(refused.bodyText.contains(#""code":"rate_limited""#))
        // `wait=0` is not counted, and the key's own 32 are its own.
        #expect(fresh(get("/v1/questions/\(id)?wait=0", token: token))?.status == 200)
        let keysWait = parked(get("/v1/inbox?wait=50", token: secret))
        #expect(api.handler.waitingCount == 65)
        clients.removeFirst().close()
        api.loopback.pump { api.handler.waitingCount == 64 }
        let next = parked(get("/v1/questions/\(id)?wait=50", token: token))
        #expect(!next.hasCompleteResponse && api.handler.waitingCount == 65)
        _ = keysWait
    }
}
