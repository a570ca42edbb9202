/// What a domain operation refuses. The API maps each case to its status and `code` in one
/// place (and, later, to MCP tool errors in another).
public enum DomainError: Error, Equatable, Sendable {
    /// 404 `not_found`; the message names the thing, e.g. `Key not found.`
    case notFound(String)
    /// 409 `conflict`: a count limit is full, or the state forbids the change.
    case conflict(String)
    /// 409 `conflict` too: the account's storage quota is full; its message says how to make
    /// room (an MCP tool error adds no other advice).
    case storageFull(String)
    /// 422 `validation_failed`, with a message per field.
    case validation([FieldProblem])
}

/// One invalid field: its name (`label`, `settings.live_activities`) and what is wrong.
public struct FieldProblem: Error, Equatable, Sendable {
    public let field: String
    public let message: String

    public init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }
}
