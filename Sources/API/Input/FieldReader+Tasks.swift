import Relaydeck

/// The fields of a task, read the same way for `POST /v1/tasks` and `PATCH /v1/tasks/{task_id}`
/// (`rest-api.md#create-a-task`, `rest-api.md#update-a-task`) and for the MCP tools
/// `create_task` and `update_task` (`mcp.md#task-tools`): one reader, so a refusal says the
/// same on both surfaces.
extension FieldReader {
    /// The fields of a new task; nil when `title` is missing or invalid (a problem is noted).
    /// `create_task` reads the same fields but `progress` and `status_note` (`mcp.md#tools`),
    /// which it then refuses as unknown.
    mutating func newTask(progress withProgress: Bool = true) -> NewTask? {
        require("title")
        let title = read("title", .text(.taskTitle))
        let description = read("description", .text(.taskDescription))
        let status = read("status", .choice) as WorkTask.Status?
        let priority = read("priority", .choice) as WorkTask.Priority?
        let notify = read("notify", .bool)
        let progress = withProgress ? read("progress", .int(Self.progress)) : nil
        let statusNote = withProgress ? read("status_note", .text(.statusNote)) : nil
        guard let title else { return nil }
        return NewTask(title: title, description: description, status: status, priority: priority, notify: notify,
                       progress: progress, statusNote: statusNote)
    }

    /// The fields of a change: absent fields stay; only `progress` and `status_note` accept
    /// `null`, which clears them.
    mutating func taskPatch() -> TaskPatch {
        TaskPatch(
            title: read("title", .text(.taskTitle)), description: read("description", .text(.taskDescription)),
            status: read("status", .choice), priority: read("priority", .choice), notify: read("notify", .bool),
            progress: readNullable("progress", .int(Self.progress)).patch,
            statusNote: readNullable("status_note", .text(.statusNote)).patch)
    }

    /// A task's `progress`, in percent.
    static let progress = 0...100
}
