@testable import API
import Clock
import JSON
import Relaydeck
import Testing

/// Discovery (`2026-07-28/server/discover`), `initialize` and `ping` of the earlier revisions,
/// the result's `resultType`, `_meta` and caching fields, and what a request records.
@Suite struct MCPLifecycleTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        agent = try MCPAgent()
    }

    @Test func discoverNamesTheVersionsTheServerAndItsRules() throws {
        let answer = try client.modern("server/discover")
        #expect(answer.status == 200)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        let result = try #require(try answer.json()["result"])
        #expect(result["resultType"]?.stringValue == "complete")
        #expect(result["supportedVersions"]?.arrayValue?.count == 4)
        #expect(result["ttlMs"]?.int64Value == 3_600_000 && result["cacheScope"]?.stringValue == "public")
        #expect(result["_meta"]?["io.modelcontextprotocol/serverInfo"]?["name"]?.stringValue == "relaydeck")
        let instructions = try #require(result["instructions"]?.stringValue)
        for rule in 1...7 { #expect(instructions.contains("\n\(rule). ")) }
        #expect(instructions.contains("A task_changed item with a cancelled status means: stop that work."))
        #expect(result["capabilities"]?["tools"] != nil)
    }

    @Test func initializeNegotiatesALegacyVersion() throws {
        for (asked, got) in [("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"), ("2024-11-05", "2025-11-25"), ("2026-07-28", "2025-11-25")] {
            let params = #"{"protocolVersion":"\#(asked)","capabilities":{},"clientInfo":{"name":"cursor","version":"3.2"}}"#
            let answer = try client.legacy("initialize", params, version: nil)
            let result = try #require(try answer.json()["result"])
            #expect(result["protocolVersion"]?.stringValue == got)
            #expect(result["serverInfo"]?["version"]?.stringValue == "0.0.0")
            #expect(result["resultType"] == nil)
            #expect(answer.header("Mcp-Session-Id") == nil)
            #expect(answer.record.client == Key.Client(name: "cursor", version: "3.2"))
            #expect(answer.record.action == "initialize")
        }
        #expect(try client.legacy("ping").text == #"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    }

    @Test func theKeysLastClientFollowsTheClientInfo() async throws {
        var events: [Change] = []
        api.services.hub.subscribe { events.append($0) }
        _ = try client.modern("tools/list")
        #expect(try await api.services.keys.get(accountID: accountID(), keyID: key.id).lastClient
            == Key.Client(name: "claude-code", version: "2.1"))
        #expect(events.filter { if case .keyUpdated = $0.event { true } else { false } }.count == 1)
        _ = try client.modern("tools/list")
        #expect(events.filter { if case .keyUpdated = $0.event { true } else { false } }.count == 1)
        var other = client
        other.clientName = "codex"
        let answer = try other.modern("tools/list")
        #expect(answer.record.client?.name == "codex")
        #expect(events.filter { if case .keyUpdated = $0.event { true } else { false } }.count == 2)
    }

    /// A name of 100 characters that is a megabyte of combining marks is not kept.
    @Test func aClientNameOverItsBytesIsIgnored() throws {
        let heavy = String(repeating: "e" + String(repeating: "\u{0301}", count: 20), count: 100)
        #expect(heavy.count == 100 && heavy.utf8.count == 4_100)
        let params = #"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"\#(heavy)","version":"1"}}"#
        #expect(try client.legacy("initialize", params, version: nil).record.client == nil)
        let fits = String(repeating: "e\u{0301}", count: 100)
        let kept = #"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"\#(fits)","version":"1"}}"#
        #expect(try client.legacy("initialize", kept, version: nil).record.client?.name == fits)
    }

    @Test func eachRequestHasOneEntryNamedByItsMethod() throws {
        _ = try client.modern("tools/list")
        api.clock.advance(millis: 1)
        _ = try client.modern("nope")
        api.clock.advance(millis: 1)
        _ = try api.send("POST", "/mcp", [bearer(key.secret)], body: "{")
        let entries = try api.entries(token: token, keyID: key.id)
        #expect(entries.map { $0["action"]?.stringValue } == ["POST /mcp", "unknown method", "tools/list"])
        #expect(entries.allSatisfy { $0["surface"]?.stringValue == "mcp" })
        #expect(entries.map { $0["code"]?.stringValue } == ["bad_request", "not_found", nil])
        #expect(entries.map { $0["status"]?.stringValue } == ["error", "error", "ok"])
        #expect(entries[2]["client"]?["name"]?.stringValue == "claude-code")
    }

    @Test func toolsListHasTheElevenToolsInOrder() throws {
        let result = try #require(try client.modern("tools/list").json()["result"])
        let tools = try #require(result["tools"]?.arrayValue)
        #expect(tools.map { $0["name"]?.stringValue ?? "" } == [
            "create_task", "list_tasks", "get_task", "update_task", "delete_task", "notify_user", "ask_user",
            "get_answer", "check_inbox", "send_message", "list_agents",
        ])
        for tool in tools {
            #expect(tool["inputSchema"]?["type"]?.stringValue == "object")
            #expect(tool["outputSchema"]?["type"]?.stringValue == "object")
            // A schema text that does not parse would fall back to a bare object.
            #expect(tool["inputSchema"]?["properties"]?.objectValue != nil, "\(tool)")
            #expect(tool["outputSchema"]?["properties"]?.objectValue != nil, "\(tool)")
            #expect(tool["annotations"]?["readOnlyHint"] != nil)
        }
        #expect(tools[4]["annotations"]?["destructiveHint"] == .bool(true))
        #expect(tools[3]["annotations"]?["idempotentHint"] == .bool(true))
        #expect(tools[1]["inputSchema"]?["properties"]?["limit"]?["default"]?.int64Value == 50)
        // The list follows the key's scopes: kept for its credential only, and not for long.
        #expect(result["ttlMs"]?.int64Value == 60_000 && result["cacheScope"]?.stringValue == "private")
        // The earlier revisions have no caching fields and no `resultType`.
        let legacy = try #require(try client.legacy("tools/list").json()["result"])
        #expect(legacy["ttlMs"] == nil && legacy["resultType"] == nil && legacy["tools"]?.arrayValue?.count == 11)
    }

    private func accountID() throws -> String {
        try #require(try api.send("GET", "/v1/account", [bearer(token)]).json()["id"]?.stringValue)
    }
}
