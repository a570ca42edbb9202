import Relaydeck
import JSON

/// The `CallToolResult` of a tool (`2026-07-28/server/tools#tool-result`): `structuredContent`
/// and a short text summary (`mcp.md#tools`), or `isError` with a message that tells a model
/// how to correct the call. The inbox line ends the text of every result, errors too, when the
/// key has unread items (`inbox.md#mcp-tools`); the structured result does not change.
enum MCPToolResult {
    /// `structured` is the JSON text of `structuredContent`, written by the tool straight
    /// from the domain values (`MCPTools.written`).
    static func success(_ structured: [UInt8], summary: String, unread: Int) -> MCPResult {
        let members = JSONObject([
            ("content", text(summary, unread: unread)),
            ("structuredContent", .null),
            ("isError", .bool(false)),
        ])
        return MCPResult(members, prewritten: .init(key: "structuredContent", json: structured))
    }

    /// A tool error with the `code` the REST API gives (`rest-api.md#entry`), in the text a
    /// model reads and in `_meta` for a program.
    static func failure(_ error: APIError, tool: MCPTool, unread: Int) -> MCPResult {
        MCPResult(JSONObject([
            ("content", text("Error \(error.code): \(explanation(error, tool: tool))", unread: unread)),
            ("isError", .bool(true)),
            ("_meta", .object(JSONObject([("relaydeck/code", .string(error.code))]))),
        ]))
    }

    /// `Inbox: 2 unread. Call check_inbox.`
    static func inboxLine(unread: Int) -> String? {
        unread > 0 ? "Inbox: \(unread) unread. Call check_inbox." : nil
    }

    private static func text(_ summary: String, unread: Int) -> JSON {
        let text = inboxLine(unread: unread).map { summary + "\n" + $0 } ?? summary
        return .array([.object(JSONObject([("type", .string("text")), ("text", .string(text))]))])
    }

    /// What went wrong and what to send instead: each argument with its problem for a `422`,
    /// the way to a valid ID for a `404`.
    static func explanation(_ error: APIError, tool: MCPTool) -> String {
        if error.saysWhatToDo { return error.message }
        switch error.code {
        case "validation_failed":
            let each = error.fields.map { "\($0.field): \($0.message)" }.joined(separator: " ")
                + (error.moreFields > 0 ? " And \(TextRules.grouped(error.moreFields)) more." : "")
            return "Invalid arguments. \(each) Correct these arguments and call \(tool.name) again."
        case "not_found":
            return "\(error.message) \(tool.notFoundHint)"
        case "rate_limited":
            return error.message
        case "conflict":
            return "\(error.message) Close or finish something first, or continue with other work."
        case "unavailable":
            return "\(error.message) Call \(tool.name) again then."
        default:
            return error.message
        }
    }
}
