/// One power an API key may hold (issue 24: "Scopes, for grants and for API keys alike").
/// A key holds a set of them (`ScopeSet`); the account token holds them all. The raw value
/// is the name clients send and read; the order of `allCases` is the order every list of
/// scopes is written in.
public enum Scope: String, CaseIterable, Sendable {
    case tasksRead = "tasks:read"
    case tasksWrite = "tasks:write"
    /// Ask the person, and read the answers.
    case questions
    case notify
    case messages
    case inbox

    /// Its bit in `ScopeSet.bits`, the value the store keeps (migration 12). Stored on disk:
    /// never renumber a scope, only add new ones at unused bits.
    var bit: Int64 {
        switch self {
        case .tasksRead: 1 << 0
        case .tasksWrite: 1 << 1
        case .questions: 1 << 2
        case .notify: 1 << 3
        case .messages: 1 << 4
        case .inbox: 1 << 5
        }
    }

    /// One line of what it allows, for a person choosing a key's scopes.
    public var explanation: String {
        switch self {
        case .tasksRead: "Read the key's tasks."
        case .tasksWrite: "Create, change and delete the key's tasks."
        case .questions: "Ask the person questions and read the answers."
        case .notify: "Send the person notifications."
        case .messages: "See the account's other agents and send them messages."
        case .inbox: "Read the key's inbox: tasks assigned, changed or deleted in the app, answers, messages."
        }
    }
}
