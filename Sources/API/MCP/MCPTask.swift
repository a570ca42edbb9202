import JSON
import Relaydeck

/// The Task object of a tool result and of a resource (`mcp.md#tools`): the REST object's
/// members in its order (`WorkTask.writeMembers`), then `created_at_iso`, `updated_at_iso` and
/// `completed_at_iso`, because a model reads those better than a number. Written once,
/// straight from the task, into the answer.
enum MCPTask {
    static func write(_ task: WorkTask, to writer: inout JSONWriter) {
        writer.beginObject()
        task.writeMembers(to: &writer)
        writer.key("created_at_iso")
        writer.string(ISO8601.text(millis: task.createdAt))
        writer.key("updated_at_iso")
        writer.string(ISO8601.text(millis: task.updatedAt))
        writer.key("completed_at_iso")
        writer.string(task.completedAt.map { ISO8601.text(millis: $0) })
        writer.endObject()
    }

    /// What one task takes written, to size a buffer: the REST object's bound and the three
    /// times (24 bytes of text each, with their names).
    static func capacity(_ task: WorkTask) -> Int {
        500 + task.description.utf8.count
    }
}
