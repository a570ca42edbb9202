@testable import API
import JSON
import Relaydeck
import Testing

/// A full account (`StorageQuota`) as REST and MCP clients see it: the contract's `409
/// conflict` with one message, mapped once, on every route and tool that adds text.
@Suite struct StorageQuotaRouteTests: MCPAgentSuite {
    let agent: MCPAgent
    static let full = "The account's storage is full: its tasks, questions and messages may hold 1 KiB of text. "
        + "Delete tasks or questions, or shorten their text, to make room."

    init() throws {
        agent = try MCPAgent()
        api.store.quota = StorageQuota(limit: 1024)
    }

    func title(_ count: Int) -> String { String(repeating: "t", count: count) }

    @Test func restAnswersConflictOnEveryRouteThatAddsText() throws {
        let made = try api.send("POST", "/v1/tasks", [apiKey(key.secret)],
                                body: #"{"title": "Fill", "description": "\#(String(repeating: "d", count: 1020))"}"#)
        #expect(made.status == 201)
        let id = try #require(try made.json()["id"]?.stringValue)
        let refusals = [
            try api.send("POST", "/v1/tasks", [apiKey(key.secret)], body: #"{"title": "One more"}"#),
            try api.send("PATCH", "/v1/tasks/\(id)", [bearer(token)], body: #"{"title": "Filled"}"#),
            try api.send("POST", "/v1/questions", [apiKey(key.secret)], body: #"{"prompt": "Go?"}"#),
            try api.send("POST", "/v1/messages", [bearer(token)], body: #"{"key_id": "\#(key.id)", "text": "Hi"}"#),
        ]
        for answer in refusals {
            #expect(answer.status == 409 && answer.text == errorBody("conflict", Self.full), "\(answer.text)")
        }
        // Shorter text passes, and makes room.
        #expect(try api.send("PATCH", "/v1/tasks/\(id)", [bearer(token)], body: #"{"description": ""}"#).status == 200)
        #expect(try api.send("POST", "/v1/tasks", [apiKey(key.secret)], body: #"{"title": "One more"}"#).status == 201)
    }

    @Test func mcpAnswersAToolErrorWithTheRESTCode() throws {
        #expect(try client.call("create_task", #"{"title": "\#(title(200))", "description": "\#(String(repeating: "d", count: 824))"}"#)["isError"]
            == .bool(false))
        let refused = try client.call("create_task", #"{"title": "x"}"#)
        #expect(refused["isError"] == .bool(true))
        #expect(refused["_meta"]?["relaydeck/code"]?.stringValue == "conflict")
        #expect(MCPClient.text(refused).hasPrefix("Error conflict: \(Self.full)"))
        // The message says how to make room; the advice for a full count would mislead.
        #expect(!MCPClient.text(refused).contains("Close or finish something first"))
        let asked = try client.call("ask_user", #"{"prompt": "Go?", "wait_seconds": 0}"#)
        #expect(asked["_meta"]?["relaydeck/code"]?.stringValue == "conflict")
    }
}
