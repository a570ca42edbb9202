/// The one line of a `task_changed` item (`inbox.md#inbox-item`): each change the person
/// made to the title, description, status or priority, in that fixed order of the contract's
/// example. A change of only `notify`, `progress` or `status_note` has no line.
enum InboxChangeLine {
    static func text(before: WorkTask, after: WorkTask) -> String? {
        var parts: [String] = []
        if after.status != before.status {
            parts.append("Status changed from \(before.status.rawValue) to \(after.status.rawValue).")
        }
        if after.priority != before.priority {
            parts.append("Priority changed from \(before.priority.rawValue) to \(after.priority.rawValue).")
        }
        if after.title != before.title {
            parts.append("Title changed to \"\(after.title)\".")
        }
        if after.description != before.description {
            parts.append("Description changed.")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
