/// The fields of a `PATCH` (`rest-api.md#update-a-task`): nil leaves a field as it is. Only
/// `progress` and `statusNote` can be cleared, so only they are double optionals:
/// `.some(nil)` is a `null` in the body.
public struct TaskPatch: Sendable {
    public var title: CheckedText?
    public var description: CheckedText?
    public var status: WorkTask.Status?
    public var priority: WorkTask.Priority?
    public var notify: Bool?
    public var progress: Int??
    public var statusNote: CheckedText??

    public init(title: CheckedText? = nil, description: CheckedText? = nil, status: WorkTask.Status? = nil,
                priority: WorkTask.Priority? = nil, notify: Bool? = nil, progress: Int?? = nil,
                statusNote: CheckedText?? = nil) {
        self.title = title
        self.description = description
        self.status = status
        self.priority = priority
        self.notify = notify
        self.progress = progress
        self.statusNote = statusNote
    }

    /// The task with this patch applied at `now`: `done` sets `progress` to 100 and
    /// `completed_at`; any other new status clears `completed_at` (`rest-api.md#task`). The
    /// result equals `task` when nothing changes.
    public func applied(to task: WorkTask, now: Int64) -> WorkTask {
        var after = task
        if let title { after.title = title.value }
        if let description { after.description = description.value }
        if let priority { after.priority = priority }
        if let notify { after.notify = notify }
        if let progress { after.progress = progress }
        if let statusNote { after.statusNote = statusNote.flatMap(TaskPatch.stored) }
        if let status, status != task.status {
            after.status = status
            if status == .done {
                after.progress = 100
                after.completedAt = now
            } else {
                after.completedAt = nil
            }
        }
        return after
    }

    /// `overview.md#limits`: an empty `status_note` is stored as `null`.
    static func stored(_ note: CheckedText) -> String? {
        note.value.isEmpty ? nil : note.value
    }
}
