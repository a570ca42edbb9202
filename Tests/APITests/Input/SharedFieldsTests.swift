@testable import API
import JSON
import Relaydeck
import Testing

/// The readers of a task's fields and of a question (`FieldReader+Tasks`, `+Questions`) are
/// one code for REST and MCP: a refusal the reader notes reaches `POST /v1/tasks`,
/// `PATCH /v1/tasks/{task_id}` and `POST /v1/questions` as a `422` on the field, and
/// `create_task`, `update_task` and `ask_user` as a tool error, with the same message.
@Suite struct SharedFieldsTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        agent = try MCPAgent()
    }

    /// The problems `read` notes on `body`, as `field: message`.
    private func problems(_ body: String, _ read: (inout FieldReader) -> Void) throws -> [String] {
        var reader = FieldReader(body: try JSONParser.parse(Array(body.utf8)))
        read(&reader)
        return reader.finish().map { "\($0.field): \($0.message)" }
    }

    /// The REST `422`'s message for `field`, and the tool error's text.
    private func both(rest method: String, _ target: String, tool: String, _ body: String,
                      toolArguments: String? = nil, field: String) throws -> (rest: String, tool: String) {
        let answer = try api.send(method, target, [apiKey(key.secret)], body: body)
        try #require(answer.status == 422, "\(answer.text)")
        let rest = try #require(try answer.json()["error"]?["fields"]?[field]?.stringValue, "\(answer.text)")
        let result = try client.call(tool, toolArguments ?? body)
        #expect(result["isError"] == .bool(true))
        #expect(result["_meta"]?["relaydeck/code"]?.stringValue == "validation_failed")
        return (rest, MCPClient.text(result))
    }

    @Test("A title too long is refused with one message by POST /v1/tasks and create_task")
    func aNewTaskRefusalIsTheSameOnBothSurfaces() throws {
        let body = #"{"title": "\#(String(repeating: "x", count: 201))"}"#
        let noted = try problems(body) { _ = $0.newTask() }
        #expect(noted == ["title: Must be 1 to 200 characters."])
        let (rest, tool) = try both(rest: "POST", "/v1/tasks", tool: "create_task", body, field: "title")
        #expect("title: \(rest)" == noted[0])
        #expect(tool == "Error validation_failed: Invalid arguments. \(noted[0]) Correct these arguments and call create_task again.")
    }

    @Test("A progress above 100 is refused with one message by PATCH /v1/tasks/{task_id} and update_task")
    func aTaskPatchRefusalIsTheSameOnBothSurfaces() throws {
        let made = try client.call("create_task", #"{"title": "Ship"}"#)
        let id = try #require(made["structuredContent"]?["id"]?.stringValue)
        let noted = try problems(#"{"progress": 101}"#) { _ = $0.taskPatch() }
        #expect(noted == ["progress: Must be an integer from 0 to 100."])
        let (rest, tool) = try both(rest: "PATCH", "/v1/tasks/\(id)", tool: "update_task", #"{"progress": 101}"#,
                                    toolArguments: #"{"task_id": "\#(id)", "progress": 101}"#, field: "progress")
        #expect("progress: \(rest)" == noted[0])
        #expect(tool == "Error validation_failed: Invalid arguments. \(noted[0]) Correct these arguments and call update_task again.")
    }

    @Test("Options on a confirm question are refused with one message by POST /v1/questions and ask_user")
    func aQuestionDraftRefusalIsTheSameOnBothSurfaces() throws {
        let body = #"{"prompt": "Deploy?", "kind": "confirm", "options": ["Yes", "No"]}"#
        let noted = try problems(body) { _ = $0.questionDraft() }
        #expect(noted == ["options: Not permitted for confirm questions."])
        let (rest, tool) = try both(rest: "POST", "/v1/questions", tool: "ask_user", body, field: "options")
        #expect("options: \(rest)" == noted[0])
        #expect(tool == "Error validation_failed: Invalid arguments. \(noted[0]) Correct these arguments and call ask_user again.")
    }

    @Test("create_task reads no progress or status_note, which the REST route takes")
    func createTaskLeavesOutProgressAndStatusNote() throws {
        let body = #"{"title": "Ship", "progress": 5, "status_note": "Going"}"#
        #expect(try problems(body) { _ = $0.newTask() }.isEmpty)
        #expect(try problems(body) { _ = $0.newTask(progress: false) } == ["progress: Unknown field.", "status_note: Unknown field."])
    }
}
