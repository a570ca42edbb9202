/// The fields of a task to create (`rest-api.md#create-a-task`), checked by the caller; what is
/// nil takes the contract's default.
public struct NewTask: Sendable {
    public var title: CheckedText
    public var description: CheckedText?
    public var status: WorkTask.Status?
    public var priority: WorkTask.Priority?
    public var notify: Bool?
    public var progress: Int?
    public var statusNote: CheckedText?

    public init(title: CheckedText, description: CheckedText? = nil, status: WorkTask.Status? = nil,
                priority: WorkTask.Priority? = nil, notify: Bool? = nil, progress: Int? = nil,
                statusNote: CheckedText? = nil) {
        self.title = title
        self.description = description
        self.status = status
        self.priority = priority
        self.notify = notify
        self.progress = progress
        self.statusNote = statusNote
    }
}
