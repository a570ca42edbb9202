/// A committed change, as the live stream names it (`events.md#event-types`). Every change
/// goes through the `EventHub` once it is committed; the event stream, the waiting calls and
/// the pushes subscribe to it.
public enum Event: Sendable, Equatable {
    case taskCreated(WorkTask)
    case taskUpdated(WorkTask)
    case taskDeleted(taskID: String, keyID: String)
    case keyCreated(Key)
    case keyUpdated(Key)
    case keyDeleted(keyID: String)
    case questionCreated(Question)
    case questionUpdated(Question)
    case inboxUpdated(keyID: String, unread: Int)
    case accountDeleted

    /// The event's name on the stream.
    public var name: String {
        switch self {
        case .taskCreated: "task.created"
        case .taskUpdated: "task.updated"
        case .taskDeleted: "task.deleted"
        case .keyCreated: "key.created"
        case .keyUpdated: "key.updated"
        case .keyDeleted: "key.deleted"
        case .questionCreated: "question.created"
        case .questionUpdated: "question.updated"
        case .inboxUpdated: "inbox.updated"
        case .accountDeleted: "account.deleted"
        }
    }
}

/// An event of one account, and (for pushes) who made the change.
public struct Change: Sendable, Equatable {
    /// Who made a change: the app (an account token), an agent (an API key), or the server
    /// itself (expiry, retention, a cap).
    public enum Actor: Sendable, Equatable {
        case account
        case key(String)
        case server
    }

    public let accountID: String
    public let event: Event
    public let actor: Actor
    /// For `task.updated`: the task as it was before, so the pushes can tell a progress tick
    /// (`push.md#who-gets-which-notification`) from a real change. Not on the stream.
    public let previous: WorkTask?

    public init(accountID: String, event: Event, actor: Actor, previous: WorkTask? = nil) {
        self.accountID = accountID
        self.event = event
        self.actor = actor
        self.previous = previous
    }

    /// The same change, whatever `previous` holds (it is a detail for the pushes).
    public static func == (lhs: Change, rhs: Change) -> Bool {
        lhs.accountID == rhs.accountID && lhs.event == rhs.event && lhs.actor == rhs.actor
    }
}
