@testable import API
import HTTP
import JSON
import Relaydeck
import Testing

/// A key twice in one object, at any level of a JSON-RPC message, is `-32600` Invalid Request
/// with a `null` id, and nothing of the message runs (`{"method":"tools/list","method":
/// "tools/call",...}` once ran `delete_task`).
@Suite struct MCPDuplicateKeyTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        agent = try MCPAgent()
    }

    private func expectInvalidRequest(_ body: String, _ headers: [(String, String)] = [("MCP-Protocol-Version", "2025-06-18")],
                                      mentioning place: String) throws {
        let answer = try api.send("POST", "/mcp", [bearer(key.secret)] + headers, body: body)
        #expect(answer.status == 400, "\(body)")
        let json = try answer.json()
        #expect(json["error"]?["code"]?.int64Value == -32600, "\(body)")
        #expect(json["error"]?["message"]?.stringValue?.hasSuffix("more than once in \(place).") == true, "\(body)")
        #expect(!answer.text.contains("\"id\""))
        #expect(answer.record.action == "POST /mcp")
    }

    private func taskCount() throws -> Int {
        try api.send("GET", "/v1/tasks?status=todo,in_progress,done,cancelled", [bearer(key.secret)]).json()["tasks"]?.arrayValue?.count ?? -1
    }

    @Test func aRepeatedMethodRunsNothing() throws {
        let task = try client.call("create_task", #"{"title":"Keep me"}"#)
        let id = try #require(task["structuredContent"]?["id"]?.stringValue)
        try expectInvalidRequest(
            #"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"delete_task","arguments":{"task_id":"\#(id)"}}}"#,
            mentioning: "the message")
        #expect(try taskCount() == 1)
        #expect(try api.send("GET", "/v1/tasks/\(id)", [bearer(key.secret)]).status == 200)
    }

    @Test func aRepeatedKeyIsRefusedAtEveryLevel() throws {
        try expectInvalidRequest(#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#, mentioning: "the message")
        try expectInvalidRequest(#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}"#, mentioning: "the message")
        try expectInvalidRequest(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_agents","name":"delete_task","arguments":{}}}"#,
                                 mentioning: "params")
        try expectInvalidRequest(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task","arguments":{"title":"a","title":"b"}}}"#,
                                 mentioning: "params.arguments")
        try expectInvalidRequest(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task","arguments":{"title":"a","x":[{"k":1,"k":2}]}}}"#,
                                 mentioning: "a value of the message")
        try expectInvalidRequest(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1,"progressToken":2}}}"#,
                                 mentioning: "a value of the message")
        // A notification with a repeated key is refused too, not accepted with a 202.
        try expectInvalidRequest(#"{"jsonrpc":"2.0","method":"notifications/initialized","method":"x"}"#, mentioning: "the message")
        #expect(try taskCount() == 0)
    }

    @Test func theModernRevisionRefusesThemToo() throws {
        let meta = #""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#
        let headers = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "create_task")]
        try expectInvalidRequest(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task","arguments":{"title":"a","title":"b"},\#(meta)}}"#,
                                 headers, mentioning: "params.arguments")
        #expect(try taskCount() == 0)
    }

    @Test func aLongRepeatedKeyIsNotEchoedInFull() throws {
        let long = String(repeating: "k", count: 100_000)
        let answer = try api.send("POST", "/mcp", [bearer(key.secret)], body: #"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"\#(long)":1,"\#(long)":2}}"#)
        #expect(try answer.json()["error"]?["code"]?.int64Value == -32600)
        #expect(answer.response.body.count < 300)
        #expect(answer.text.contains(String(repeating: "k", count: 40) + "…"))
    }

    @Test func distinctKeysAreServedAsBefore() throws {
        #expect(try client.legacy("ping").status == 200)
        let result = try client.call("create_task", #"{"title":"a","description":"b"}"#)
        #expect(result["isError"]?.boolValue != true)
        #expect(try taskCount() == 1)
    }
}
