import Relaydeck

/// What an endpoint adds to its request's record beyond the answer's status: the MCP
/// endpoint names its method or tool as the action, gives the request's `clientInfo`, leaves a
/// notification without an entry, and reports a tool error that travels in a `200`
/// (`rest-api.md#activity-log`: "A tool error has the same `code` that the REST API gives").
struct RecordNote {
    /// The activity log's `action` (`create_task`, `tools/list`, `unknown method`).
    var action: String?
    /// The MCP `clientInfo` of the request.
    var client: Key.Client?
    /// An MCP notification has no activity entry.
    var noEntry = false
    /// The error of a call answered `200` (a tool error, a JSON-RPC error).
    var failure: APIError?
}
