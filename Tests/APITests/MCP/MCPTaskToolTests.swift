@testable import API
import Clock
import JSON
import Relaydeck
import Testing

/// The task tools (`mcp.md#task-tools`) on the REST routes' services and rules.
@Suite struct MCPTaskToolTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        agent = try MCPAgent()
    }

    @Test func createTaskReturnsTheTaskWithISOTimes() throws {
        let result = try client.call("create_task", #"{"title": "  Add   dark mode ", "priority": "high"}"#)
        #expect(result["isError"] == .bool(false))
        let task = try #require(result["structuredContent"])
        #expect(task["title"]?.stringValue == "Add dark mode")
        #expect(task["priority"]?.stringValue == "high")
        #expect(task["created_at_iso"]?.stringValue == "2025-10-09T08:53:20.000Z")
        #expect(task["completed_at_iso"] == .null)
        #expect(task["seen_at"]?.doubleValue == 1_760_000_000)
        #expect(MCPClient.text(result).hasPrefix("Created task tsk_"))
        #expect(result["resultType"]?.stringValue == "complete")
    }

    @Test func aDomainOrArgumentErrorIsAToolErrorWithTheRESTCode() throws {
        let missing = try client.call("create_task", #"{"description": "x", "key_id": "key_x"}"#)
        #expect(missing["isError"] == .bool(true))
        #expect(missing["_meta"]?["relaydeck/code"]?.stringValue == "validation_failed")
        #expect(MCPClient.text(missing) == "Error validation_failed: Invalid arguments. key_id: Unknown field. title: Required. Correct these arguments and call create_task again.")
        let unknown = try client.call("get_task", #"{"task_id": "tsk_nope"}"#)
        #expect(MCPClient.text(unknown) == "Error not_found: Task not found. Call list_tasks to see the task IDs of this key.")
        let entries = try api.entries(token: token, keyID: key.id)
        #expect(entries.map { $0["action"]?.stringValue } == ["get_task", "create_task"])
        #expect(entries.map { $0["code"]?.stringValue } == ["not_found", "validation_failed"])
        #expect(entries.map { $0["status"]?.stringValue } == ["error", "error"])
        #expect(entries[0]["message"]?.stringValue == "Task not found.")
    }

    @Test func anUnknownToolIsInvalidParams() throws {
        let answer = try client.modern("tools/call", #""name":"make_coffee","arguments":{}"#, name: "make_coffee")
        #expect(try answer.json()["error"]?["code"]?.int64Value == -32602)
        #expect(answer.record.action == "tools/call")
    }

    @Test func listTasksTakesArraysOrCommaTextAndMarksTheTasksSeen() throws {
        let made = try api.send("POST", "/v1/tasks", [bearer(token)], body: #"{"key_id": "\#(key.id)", "title": "From the app"}"#)
        let id = try #require(try made.json()["id"]?.stringValue)
        #expect(try made.json()["seen_at"] == .null)
        _ = try client.call("create_task", #"{"title": "Mine", "status": "done"}"#)
        api.clock.advance(millis: 500)
        let open = try client.call("list_tasks", #"{"status": "todo,in_progress"}"#)
        #expect(open["structuredContent"]?["tasks"]?.arrayValue?.map { $0["id"]?.stringValue } == [id])
        #expect(open["structuredContent"]?["tasks"]?.arrayValue?.first?["seen_at"]?.doubleValue == 1_760_000_000.5)
        #expect(try api.send("GET", "/v1/tasks/\(id)", [bearer(token)]).json()["seen_at"]?.doubleValue == 1_760_000_000.5)
        let both = try client.call("list_tasks", #"{"status": ["done", "todo"], "limit": 1}"#)
        #expect(both["structuredContent"]?["tasks"]?.arrayValue?.count == 1)
        let cursor = try #require(both["structuredContent"]?["next_cursor"]?.stringValue)
        #expect(MCPClient.text(both).contains("cursor \"\(cursor)\""))
        let next = try client.call("list_tasks", #"{"status": ["done", "todo"], "limit": 1, "cursor": "\#(cursor)"}"#)
        #expect(next["structuredContent"]?["next_cursor"] == .null)
        let bad = try client.call("list_tasks", #"{"status": 3, "limit": 501}"#)
        #expect(MCPClient.text(bad).contains("limit: Must be an integer from 1 to 500."))
        #expect(MCPClient.text(bad).contains("status: Must be an array or a comma-separated string."))
    }

    @Test func updateTaskIgnoresNullsButClearsProgressAndNote() throws {
        let made = try client.call("create_task", #"{"title": "Ship"}"#)
        let id = try #require(made["structuredContent"]?["id"]?.stringValue)
        let started = try client.call("update_task", #"{"task_id": "\#(id)", "status": "in_progress", "progress": 40, "status_note": "Going"}"#)
        #expect(started["structuredContent"]?["progress"]?.int64Value == 40)
        let nulls = try client.call("update_task", #"{"task_id": "\#(id)", "title": null, "priority": null, "progress": null, "status_note": null}"#)
        #expect(nulls["isError"] == .bool(false))
        #expect(nulls["structuredContent"]?["title"]?.stringValue == "Ship")
        #expect(nulls["structuredContent"]?["progress"] == .null && nulls["structuredContent"]?["status_note"] == .null)
        let done = try client.call("update_task", #"{"task_id": "\#(id)", "status": "done"}"#)
        #expect(done["structuredContent"]?["progress"]?.int64Value == 100)
        #expect(done["structuredContent"]?["completed_at_iso"]?.stringValue == "2025-10-09T08:53:20.000Z")
        let deleted = try client.call("delete_task", #"{"task_id": "\#(id)"}"#)
        #expect(deleted["structuredContent"]?.description == #"{"deleted":true,"task_id":"\#(id)"}"#)
        #expect(try client.call("delete_task", #"{"task_id": "\#(id)"}"#)["isError"] == .bool(true))
    }

    @Test func theInboxLineEndsEveryToolResultWhileItemsAreUnread() throws {
        #expect(try api.send("POST", "/v1/messages", [bearer(token)], body: #"{"key_id": "\#(key.id)", "text": "Hi"}"#).status == 201)
        #expect(try api.send("POST", "/v1/messages", [bearer(token)], body: #"{"key_id": "\#(key.id)", "text": "Again"}"#).status == 201)
        let listed = try client.call("list_tasks")
        #expect(MCPClient.text(listed) == "No tasks.\nInbox: 2 unread. Call check_inbox.")
        #expect(listed["structuredContent"]?.description == #"{"tasks":[],"next_cursor":null}"#)
        let failed = try client.call("get_task", #"{"task_id": "tsk_x"}"#)
        #expect(MCPClient.text(failed).hasSuffix("\nInbox: 2 unread. Call check_inbox."))
        let read = try client.call("check_inbox", #"{"limit": 1}"#)
        #expect(MCPClient.text(read).hasSuffix("\nInbox: 1 unread. Call check_inbox."))
        #expect(read["structuredContent"]?["unread"]?.int64Value == 1)
        let rest = try client.call("check_inbox")
        #expect(MCPClient.text(rest) == "1 item:\n- message: Again")
    }

    @Test func theISOTextOfATime() {
        #expect(ISO8601.text(millis: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.text(millis: 951_782_400_123) == "2000-02-29T00:00:00.123Z")
        #expect(ISO8601.text(millis: -1) == "1969-12-31T23:59:59.999Z")
        #expect(ISO8601.text(millis: 1_760_112_000_412) == "2025-10-10T16:00:00.412Z")
        // Past the four-digit years, from padded pieces as before.
        #expect(ISO8601.text(millis: 253_402_300_800_000) == "10000-01-01T00:00:00.000Z")
    }

    @Test(arguments: [0, 951_782_400_123, -1, 1_760_112_000_412, 253_402_300_799_999, 253_402_300_800_000,
                      -62_167_219_200_000, -62_167_219_200_001] as [Int64])
    func theISOTimeWrittenIntoJSONIsTheTextAsAString(_ millis: Int64) {
        var written = JSONWriter()
        written.beginArray()
        ISO8601.write(millis: millis, to: &written)
        ISO8601.write(millis: millis, to: &written)
        written.endArray()
        var expected = JSONWriter()
        expected.beginArray()
        expected.string(ISO8601.text(millis: millis))
        expected.string(ISO8601.text(millis: millis))
        expected.endArray()
        #expect(written.bytes == expected.bytes)
    }
}
