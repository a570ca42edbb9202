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
        ISO8601.write(millis: task.createdAt, to: &writer)
        writer.key("updated_at_iso")
        ISO8601.write(millis: task.updatedAt, to: &writer)
        writer.key("completed_at_iso")
        if let completedAt = task.completedAt {
            ISO8601.write(millis: completedAt, to: &writer)
        } else {
            writer.null()
        }
        writer.endObject()
    }

    /// What one task takes written, to size a buffer: the REST object's bound and the three
    /// times (24 bytes of text each, with their names).
    static func capacity(_ task: WorkTask) -> Int {
        500 + task.description.utf8.count
    }
}
