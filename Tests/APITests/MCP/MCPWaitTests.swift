@testable import API
import Clock
import HTTP
import HTTPTestSupport
import Relaydeck
import Testing

/// `mcp.md#ask-the-person` and `inbox.md#mcp-tools`: the waiting tools are parked calls over
/// real sockets; they return the moment the state changes, and obey the 32 waiting calls of a
/// key (`ask_user` still asks).
@Suite struct MCPWaitTests {
    let api: APIServer
    let token: String
    let secret: String

    init() throws {
        api = try APIServer()
        token = try api.accountToken()
        secret = try api.keySecret(token: token)
    }

    /// Sends a `2026-07-28` tool call on `client`.
    private func call(_ client: TestClient, _ tool: String, _ arguments: String) {
        let body = #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments),"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        client.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(secret)\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            + "Mcp-Method: tools/call\r\nMcp-Name: \(tool)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    private func send(_ method: String, _ target: String, _ body: String) -> TestResponse? {
        let client = api.loopback.connect()
        client.send("\(method) \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return api.loopback.response(client)
    }

    @Test func askUserWaitsAndReturnsTheMomentThePersonAnswers() throws {
        let asker = api.loopback.connect()
        call(asker, "ask_user", #"{"prompt": "Deploy?", "wait_seconds": 50}"#)
        api.loopback.pump(rounds: 10)
        #expect(!asker.hasCompleteResponse && api.handler.waitingCount == 1)
        let list = try #require(send("GET", "/v1/questions", "")?.bodyText)
        let start = try #require(list.firstRange(of: #""id":""#))
        let id = String(list[start.upperBound...].prefix(while: { $0 != "\"" }))
        let started = api.loopback.clock.now
        #expect(send("POST", "/v1/questions/\(id)/answer", #"{"answer":"Yes"}"#)?.status == 200)
        let answer = try #require(api.loopback.response(asker))
        #expect(api.loopback.clock.now == started)
        #expect(answer.status == 200)
        #expect(answer.bodyText.contains(#""status":"answered""#) && answer.bodyText.contains(#""isError":false"#))
        #expect(api.records.last?.namedAction == "ask_user" && api.records.last?.ending == .answered)
    }

    @Test func anAskUserWhoseWaitEndsPendingStillHasItsEntry() throws {
        let asker = api.loopback.connect()
        call(asker, "ask_user", #"{"prompt": "Deploy?", "wait_seconds": 5}"#)
        api.loopback.pump(rounds: 10)
        api.loopback.advance(by: .seconds(6))
        let answer = try #require(api.loopback.response(asker))
        #expect(answer.bodyText.contains(#""status":"pending""#))
        #expect(api.records.last?.namedAction == "ask_user" && api.records.last?.ending == .answered)
        // A get_answer that only waited has none.
        let id = try #require(answer.bodyText.firstRange(of: #""id":"qst_"#).map { answer.bodyText[$0.upperBound...].prefix(while: { $0 != "\"" }) })
        let reader = api.loopback.connect()
        call(reader, "get_answer", #"{"question_id": "qst_\#(id)", "wait_seconds": 5}"#)
        api.loopback.pump(rounds: 10)
        api.loopback.advance(by: .seconds(6))
        #expect(api.loopback.response(reader)?.bodyText.contains(#""status":"pending""#) == true)
        #expect(api.records.last?.namedAction == "get_answer" && api.records.last?.ending == .onlyWaited)
    }

    @Test func checkInboxWaitsForAnItemOrEndsWithNothingAndNoEntry() throws {
        let keyID = try api.keyID(secret: secret)
        let reader = api.loopback.connect()
        call(reader, "check_inbox", #"{"wait_seconds": 20}"#)
        api.loopback.pump(rounds: 10)
        #expect(!reader.hasCompleteResponse)
        #expect(send("POST", "/v1/messages", #"{"key_id":"\#(keyID)","text":"Rebase."}"#)?.status == 201)
        let answer = try #require(api.loopback.response(reader))
        #expect(answer.bodyText.contains(#""text":"Rebase.""#) && answer.bodyText.contains("1 item:"))

        let idle = api.loopback.connect()
        call(idle, "check_inbox", #"{"wait_seconds": 5}"#)
        api.loopback.pump(rounds: 10)
        api.loopback.advance(by: .seconds(6))
        let empty = try #require(api.loopback.response(idle))
        #expect(empty.bodyText.contains(#""structuredContent":{"items":[],"unread":0}"#))
        #expect(api.records.last?.ending == .onlyWaited)
    }

    @Test func aboveThirtyTwoWaitingCallsAskUserStillAsksAndTheOthersFail() throws {
        var waiters: [TestClient] = []
        for _ in 0..<32 {
            let client = api.loopback.connect()
            call(client, "check_inbox", #"{"wait_seconds": 50}"#)
            waiters.append(client)
        }
        api.loopback.pump(rounds: 40)
        #expect(api.handler.waitingCount == 32)
        let inbox = api.loopback.connect()
        call(inbox, "check_inbox", #"{"wait_seconds": 50}"#)
        let refused = try #require(api.loopback.response(inbox))
        #expect(refused.status == 200 && refused.bodyText.contains(#""isError":true"#) && refused.bodyText.contains("rate_limited"))
        let asker = api.loopback.connect()
        call(asker, "ask_user", #"{"prompt": "Deploy?", "wait_seconds": 50}"#)
        let pending = try #require(api.loopback.response(asker))
        #expect(pending.bodyText.contains(#""status":"pending""#) && pending.bodyText.contains(#""isError":false"#))
        #expect(api.handler.waitingCount == 32)
    }
}
