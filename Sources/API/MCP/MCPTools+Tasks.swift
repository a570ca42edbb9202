import HTTP
import JSON
import Relaydeck

/// The task tools (`mcp.md#task-tools`): the `Tasks` service and the readers of a task's fields
/// that `TaskRoutes` uses, so the same rules. A Task in a result is written by `MCPTask` (its
/// times in ISO 8601 too), and a task given to the agent is seen (`inbox.md#task-field`).
extension MCPTools {
    func createTask(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        let new = reader.newTask(progress: false)
        try reader.check()
        guard let new else { throw APIError.defect("checked arguments lost their title") }
        let host = invocation.exchange.head.header("x-relaydeck-host").flatMap(TextRules.hostName)
        let task = try await services.tasks.create(.key(invocation.use), keyID: nil, new, host: host)
        return .result(Self.written(task), summary: "Created task \(task.id): \(Self.line(task)).")
    }

    /// `status` and `priority` are arrays, or one string with commas; `limit` the sizes of
    /// `Limits.listTasksTool` (REST's sizes, 50 without one).
    func listTasks(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        let statuses = reader.list("status", count: 1...4, commaText: true, .choice) as [WorkTask.Status]?
        let priorities = reader.list("priority", count: 1...4, commaText: true, .choice) as [WorkTask.Priority]?
        let limit = reader.read("limit", .int(Limits.listTasksTool.sizes)) ?? Limits.listTasksTool.defaultSize
        var cursor: TaskCursor?
        if let text = reader.read("cursor", .string) {
            cursor = TaskCursor(text: text)
            if cursor == nil { reader.add("cursor", "Must be a next_cursor of list_tasks.") }
        }
        try reader.check()
        let principal = Principal.key(invocation.use)
        let filter = TaskFilter(statuses: statuses, priorities: priorities, limit: limit)
        let (found, next) = try await services.tasks.list(principal, filter, after: cursor)
        let tasks = try await services.tasks.markSeen(invocation.use, found)
        // A page of some size is written as the client reads it (`StreamedArray`).
        let streamed = StreamedArray.worthStreaming(expectedBytes: tasks.reduce(0) { $0 + $1.pageBytes })
            ? StreamedArray(count: tasks.count) { index, writer in MCPTask.write(tasks[index], to: &writer) } : nil
        let capacity = streamed == nil ? tasks.reduce(64) { $0 + MCPTask.capacity($1) } : 256
        let structured = Self.written(capacity: capacity) { writer in
            writer.beginObject()
            writer.key("tasks")
            if let streamed {
                writer.string(streamed.placeholder)
            } else {
                writer.beginArray()
                for task in tasks { MCPTask.write(task, to: &writer) }
                writer.endArray()
            }
            writer.key("next_cursor")
            writer.string(next?.text)
            writer.endObject()
        }
        var summary = tasks.isEmpty ? "No tasks." : "\(tasks.count) task\(tasks.count == 1 ? "" : "s"):"
        for task in tasks { summary += "\n- \(task.id): \(Self.line(task))" }
        if let next { summary += "\nMore tasks follow: call list_tasks again with cursor \"\(next.text)\"." }
        if let streamed { return .streamed(structured, summary: summary, streamed) }
        return .result(structured, summary: summary)
    }

    func getTask(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        let id = try Self.requiredID("task_id", &reader)
        let task = try await seen(invocation, try services.tasks.get(.key(invocation.use), taskID: id))
        return .result(Self.written(task), summary: "Task \(task.id): \(Self.line(task)).")
    }

    /// `mcp.md#task-tools`: an argument that is `null` or not sent does not change the field;
    /// for `progress` and `status_note` a `null` clears it. So the other `null`s are dropped
    /// before the REST route's reader sees them.
    func updateTask(_ invocation: Invocation, _ arguments: JSON) async throws -> Answer {
        var kept = arguments
        if case .object(var object) = arguments {
            object.members.removeAll { $0.value.isNull && !Self.clearable.contains($0.key) }
            kept = .object(object)
        }
        var reader = FieldReader(body: kept)
        let id = reader.read("task_id", .string)
        if id == nil { reader.require("task_id") }
        let patch = reader.taskPatch()
        try reader.check()
        guard let id else { throw APIError.defect("checked arguments lost their task_id") }
        let task = try await seen(invocation, try services.tasks.update(.key(invocation.use), taskID: id, patch))
        return .result(Self.written(task), summary: "Updated task \(task.id): \(Self.line(task)).")
    }

    func deleteTask(_ invocation: Invocation, _ reader: inout FieldReader) async throws -> Answer {
        let id = try Self.requiredID("task_id", &reader)
        try await services.tasks.delete(.key(invocation.use), taskID: id)
        let structured = Self.written { writer in
            writer.beginObject()
            writer.key("deleted")
            writer.bool(true)
            writer.key("task_id")
            writer.string(id)
            writer.endObject()
        }
        return .result(structured, summary: "Deleted task \(id).")
    }

    /// The fields of `update_task` whose `null` clears them.
    static let clearable: Set = ["progress", "status_note"]

    private func seen(_ invocation: Invocation, _ task: WorkTask) async throws -> WorkTask {
        try await services.tasks.markSeen(invocation.use, [task])[0]
    }

    /// A string argument that must be there, after every other argument was read.
    static func requiredID(_ name: String, _ reader: inout FieldReader) throws -> String {
        reader.require(name)
        let id = reader.read(name, .string)
        try reader.check()
        guard let id else { throw APIError.defect("checked arguments lost their \(name)") }
        return id
    }

    /// A task as a tool's structured content.
    static func written(_ task: WorkTask) -> [UInt8] {
        written(capacity: MCPTask.capacity(task)) { MCPTask.write(task, to: &$0) }
    }

    /// `"Fix the login loop" (in_progress, high, 40%)`
    static func line(_ task: WorkTask) -> String {
        var line = "\"\(task.title)\" (\(task.status.rawValue), \(task.priority.rawValue)"
        if let progress = task.progress { line += ", \(progress)%" }
        line += ")"
        if let note = task.statusNote { line += ": \(note)" }
        return line
    }
}
