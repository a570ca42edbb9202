@testable import API
import JSON
import Relaydeck
import Testing

/// A tool result's `structuredContent` is written once, straight from the domain value, into
/// the JSON-RPC answer: a task is the bytes of the REST Task object with the three ISO times
/// after its members, a question the bytes of the REST Question object.
@Suite struct MCPStructuredContentTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        agent = try MCPAgent()
    }

    /// The body of a tool call's answer, as text.
    private func callText(_ tool: String, _ arguments: String) throws -> String {
        let answer = try client.modern("tools/call", #""name":"\#(tool)","arguments":\#(arguments)"#, name: tool)
        try #require(answer.status == 200)
        return answer.text
    }

    /// The REST text of a task with the three ISO members before its closing brace.
    private func restPlusISO(_ rest: String, completedAt: String?) -> String {
        let iso = #","created_at_iso":"2025-10-09T08:53:20.000Z","updated_at_iso":"2025-10-09T08:53:20.000Z","#
            + #""completed_at_iso":\#(completedAt.map { #""\#($0)""# } ?? "null")}"#
        return String(rest.dropLast()) + iso
    }

    @Test("get_task answers the REST task's bytes and its ISO times, open and done")
    func aTaskInAResultIsTheRESTObjectPlusISOTimes() throws {
        let made = try client.call("create_task", #"{"title": "Ship \"it\"", "description": "Line\n\u00e9"}"#)
        let id = try #require(made["structuredContent"]?["id"]?.stringValue)
        let open = try callText("get_task", #"{"task_id": "\#(id)"}"#)
        let rest = try api.send("GET", "/v1/tasks/\(id)", [apiKey(key.secret)]).text
        #expect(open.contains(#""structuredContent":\#(restPlusISO(rest, completedAt: nil)),"isError":false"#), "\(open)")
        let done = try callText("update_task", #"{"task_id": "\#(id)", "status": "done"}"#)
        let closed = try api.send("GET", "/v1/tasks/\(id)", [apiKey(key.secret)]).text
        #expect(closed.contains(#""completed_at":1760000000.0"#) && closed.contains(#""seen_at":1760000000.0"#))
        #expect(done.contains(#""structuredContent":\#(restPlusISO(closed, completedAt: "2025-10-09T08:53:20.000Z")),"isError":false"#),
                "\(done)")
    }

    @Test("ask_user answers the REST question's bytes")
    func aQuestionInAResultIsTheRESTObject() throws {
        let asked = try callText("ask_user", #"{"prompt": "Deploy?", "kind": "choice", "options": ["Yes", "No"], "wait_seconds": 0}"#)
        let id = try #require(try JSONParser.parse(Array(asked.utf8))["result"]?["structuredContent"]?["id"]?.stringValue)
        let rest = try api.send("GET", "/v1/questions/\(id)", [apiKey(key.secret)]).text
        #expect(asked.contains(#""structuredContent":\#(rest),"isError":false"#), "\(asked)")
    }
}
