import HTTP
import JSON
import Relaydeck

extension TaskRoutes {
    /// `GET /v1/tasks` (`rest-api.md#list-tasks`).
    func list(_ call: inout Call, _ principal: Principal) async throws -> Outcome {
        var query = call.queryReader()
        let keyID = Self.keyID(&query, principal)
        let statuses = query.list("status", count: 1...4, .choice) as [WorkTask.Status]?
        let priorities = query.list("priority", count: 1...4, .choice) as [WorkTask.Priority]?
        let limit = query.read("limit", .int(Limits.tasksPage.sizes))
        var cursor: TaskCursor?
        if let text = query.read("cursor", .string) {
            cursor = TaskCursor(text: text)
            if cursor == nil { query.add("cursor", "Must be a next_cursor of this list.") }
        }
        try query.check()
        let filter = TaskFilter(keyID: keyID, statuses: statuses, priorities: priorities, limit: limit ?? Limits.tasksPage.defaultSize)
        let (tasks, next) = try await tasks.list(principal, filter, after: cursor)
        let expected = tasks.reduce(64) { $0 + $1.pageBytes }
        // A page of some size is written as the client reads it (`StreamedArray`).
        let streamed = StreamedArray.worthStreaming(expectedBytes: expected)
            ? StreamedArray(count: tasks.count) { index, writer in tasks[index].write(to: &writer) } : nil
        let answer = Answers.response(capacity: streamed == nil ? expected : 256) { writer in
            writer.beginObject()
            writer.key("tasks")
            if let streamed {
                writer.string(streamed.placeholder)
            } else {
                writer.beginArray()
                for task in tasks { task.write(to: &writer) }
                writer.endArray()
            }
            writer.key("next_cursor")
            writer.string(next?.text)
            writer.endObject()
        }
        return .respond(try streamed?.answer(answer) ?? answer)
    }

    /// `POST /v1/tasks` (`rest-api.md#create-a-task`): only `title` is necessary; `key_id` is
    /// necessary for the account and refused for an API key.
    func create(_ call: inout Call, _ principal: Principal) async throws -> Outcome {
        var body = call.bodyReader()
        if principal.keyID == nil { body.require("key_id") }
        let keyID = Self.keyID(&body, principal)
        let new = body.newTask()
        try body.check()
        guard let new else { throw APIError.defect("a checked body lost its title") }
        let host = principal.keyID == nil ? nil : call.request.head.header("x-relaydeck-host").flatMap(TextRules.hostName)
        return Self.answer(try await tasks.create(principal, keyID: keyID, new, host: host), status: 201)
    }

    /// `PATCH /v1/tasks/{task_id}` (`rest-api.md#update-a-task`): absent fields stay; only
    /// `progress` and `status_note` accept `null`.
    func update(_ call: inout Call, _ principal: Principal) async throws -> Outcome {
        var body = call.bodyReader()
        let patch = body.taskPatch()
        try body.check()
        return Self.answer(try await tasks.update(principal, taskID: try call.path("task_id"), patch))
    }

    /// `key_id`: read for the account, a problem for an API key.
    private static func keyID(_ reader: inout FieldReader, _ principal: Principal) -> String? {
        guard principal.keyID == nil else {
            if reader.has("key_id") {
                reader.ignore("key_id")
                reader.add("key_id", accountOnly)
            }
            return nil
        }
        return reader.read("key_id", .string)
    }
}
