@testable import API
import Clock
import JSON
import Relaydeck
import Testing

/// A key's scopes on `/mcp` (issue 24): `tools/list` and the resource lists show only what the
/// key may use; a tool it may not call is a tool error naming the scope, not a protocol error.
@Suite struct MCPScopeTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        var configuration = APIConfiguration()
        configuration.metricsToken = Array("metrics-secret".utf8)
        agent = try MCPAgent(configuration: configuration)
    }

    private func setScopes(_ names: String) throws {
        let answer = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)], body: #"{"scopes": \#(names)}"#)
        try #require(answer.status == 200)
    }

    private func toolNames(_ answer: Answer) throws -> [String] {
        try #require(try answer.json()["result"]?["tools"]?.arrayValue).map { $0["name"]?.stringValue ?? "" }
    }

    static func refusal(_ scope: String, _ tool: String) -> String {
        "Error insufficient_scope: The key lacks the scope \(scope), which \(tool) needs. The person can give the key this scope in the web console."
    }

    @Test func toolsListShowsOnlyTheToolsOfTheKeysScopesInEveryRevision() throws {
        try setScopes(#"["tasks:read", "inbox"]"#)
        #expect(try toolNames(client.modern("tools/list")) == ["list_tasks", "get_task", "check_inbox"])
        #expect(try toolNames(client.legacy("tools/list")) == ["list_tasks", "get_task", "check_inbox"])
        #expect(try toolNames(client.legacy("tools/list", version: "2025-03-26")) == ["list_tasks", "get_task", "check_inbox"])
        try setScopes(#"["notify"]"#)
        #expect(try toolNames(client.modern("tools/list")) == ["notify_user"])
        try setScopes(#"["messages", "questions", "tasks:write"]"#)
        #expect(try toolNames(client.modern("tools/list"))
            == ["create_task", "update_task", "delete_task", "ask_user", "get_answer", "send_message", "list_agents"])
    }

    @Test func aToolTheKeyMayNotCallIsAToolErrorNamingTheScopeAndItsArgumentsAreNotRead() throws {
        try setScopes(#"["tasks:read"]"#)
        for (tool, scope, arguments) in [
            ("create_task", "tasks:write", #"{"title": 12, "bogus": true}"#),
            ("notify_user", "notify", #"{"title": "Deploy", "body": "Done."}"#),
            ("ask_user", "questions", #"{"prompt": "Deploy?", "wait_seconds": 50}"#),
            ("check_inbox", "inbox", #"{"wait_seconds": 50}"#),
            ("list_agents", "messages", "{}"),
        ] {
            let result = try client.call(tool, arguments)
            #expect(result["isError"] == .bool(true), "\(tool)")
            #expect(result["_meta"]?["relaydeck/code"]?.stringValue == "insufficient_scope")
            #expect(MCPClient.text(result) == Self.refusal(scope, tool))
            #expect(result["structuredContent"] == nil)
        }
        // Nothing was made, asked or waited for.
        #expect(try api.send("GET", "/v1/questions", [bearer(token)]).text == #"{"questions":[]}"#)
        #expect(try client.call("list_tasks")["structuredContent"]?["tasks"]?.arrayValue?.isEmpty == true)
        #expect(api.handler.waitingCount == 0)
    }

    @Test func anUnknownToolIsStillAProtocolError() throws {
        try setScopes(#"["notify"]"#)
        let answer = try client.modern("tools/call", #""name":"drop_tables","arguments":{}"#, name: "drop_tables")
        #expect(try answer.json()["error"]?["code"]?.int64Value == -32602)
    }

    @Test func theInboxLineIsLeftOutForAKeyThatMayNotReadItsInbox() throws {
        _ = try api.send("POST", "/v1/messages", [bearer(token)], body: #"{"key_id": "\#(key.id)", "text": "Rebase first."}"#)
        #expect(MCPClient.text(try client.call("list_tasks")).hasSuffix("Inbox: 1 unread. Call check_inbox."))
        try setScopes(#"["tasks:read"]"#)
        let text = MCPClient.text(try client.call("list_tasks"))
        #expect(!text.contains("Inbox:"), "\(text)")
        let refused = MCPClient.text(try client.call("check_inbox"))
        #expect(refused == Self.refusal("inbox", "check_inbox"))
    }

    @Test func theResourcesAreListedAndReadOnlyWithTasksRead() throws {
        let made = try client.call("create_task", #"{"title": "Open one"}"#)
        let id = try #require(made["structuredContent"]?["id"]?.stringValue)
        try setScopes(#"["tasks:write", "inbox"]"#)
        let list = try #require(try client.modern("resources/list").json()["result"])
        #expect(list["resources"]?.arrayValue?.isEmpty == true)
        #expect(list["cacheScope"]?.stringValue == "private" && list["ttlMs"]?.int64Value == 60_000)
        #expect(try client.modern("resources/templates/list").json()["result"]?["resourceTemplates"]?.arrayValue?.isEmpty == true)
        for uri in ["tasks://open", "tasks://task/\(id)"] {
            let read = try client.modern("resources/read", #""uri":"\#(uri)""#, name: uri)
            #expect(read.status == 200)
            let error = try #require(try read.json()["error"])
            #expect(error["code"]?.int64Value == -32602)
            #expect(error["message"]?.stringValue
                == "Invalid params: The key lacks the scope tasks:read, which resources/read needs. The person can give the key this scope in the web console.")
        }
        // The prompts read nothing: every key has them.
        #expect(try client.modern("prompts/list").json()["result"]?["prompts"]?.arrayValue?.count == 2)
        try setScopes(#"["tasks:read"]"#)
        #expect(try client.modern("resources/list").json()["result"]?["resources"]?.arrayValue?.count == 1)
        #expect(try client.modern("resources/read", #""uri":"tasks://open""#, name: "tasks://open").json()["result"] != nil)
    }

    @Test func aRefusedToolHasItsActivityEntryAndIsCountedForMetrics() throws {
        try setScopes(#"["inbox"]"#)
        _ = try client.call("notify_user", #"{"title": "Deploy", "body": "Done."}"#)
        api.clock.advance(millis: 1_000)
        _ = try client.call("check_inbox")
        api.clock.advance(millis: 1_000)
        _ = try client.modern("resources/read", #""uri":"tasks://open""#, name: "tasks://open")
        let entries = try api.entries(token: token, keyID: key.id)
        #expect(entries.prefix(3).map { "\($0["action"]?.stringValue ?? "") \($0["status"]?.stringValue ?? "") \($0["code"]?.stringValue ?? "-")" } == [
            "resources/read error insufficient_scope", "check_inbox ok -", "notify_user error insufficient_scope",
        ])
        let metrics = try api.send("GET", "/metrics", [bearer("metrics-secret")]).text
        #expect(metrics.contains(#"relaydeck_scope_refusals_total{scope="notify",surface="mcp"} 1"#))
        #expect(metrics.contains(#"relaydeck_scope_refusals_total{scope="tasks:read",surface="mcp"} 1"#))
        #expect(metrics.contains(#"relaydeck_scope_refusals_total{scope="inbox",surface="mcp"} 0"#))
    }
}
