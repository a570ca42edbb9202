import HTTP
import JSON
import Relaydeck

/// The resources and prompts of `mcp.md#resources` and `mcp.md#prompts`: `tasks://open`, the
/// template `tasks://task/{task_id}`, and the prompts `plan_work` and `status_report`
/// (`2026-07-28/server/resources`, `server/prompts`).
struct MCPContent {
    let context: APIContext

    static let openURI = "tasks://open"
    static let taskPrefix = "tasks://task/"

    func answer(_ exchange: MCPExchange) throws -> HTTPResponse {
        switch exchange.method {
        case "resources/list":
            var result = JSONObject([("resources", .array([Self.entry([
                ("uri", Self.openURI), ("name", "open_tasks"), ("title", "Open tasks"),
                ("description", "The todo and in_progress tasks of this key, as JSON."), ("mimeType", "application/json"),
            ])]))])
            MCPRoutes.cacheable(&result, exchange, scope: "public")
            return exchange.reply(result)
        case "resources/templates/list":
            var result = JSONObject([("resourceTemplates", .array([Self.entry([
                ("uriTemplate", Self.taskPrefix + "{task_id}"), ("name", "task"), ("title", "One task"),
                ("description", "One task of this key, as JSON."), ("mimeType", "application/json"),
            ])]))])
            MCPRoutes.cacheable(&result, exchange, scope: "public")
            return exchange.reply(result)
        case "resources/read":
            return exchange.reply(try read(exchange))
        case "prompts/list":
            var result = JSONObject([("prompts", .array(MCPPrompts.listed))])
            MCPRoutes.cacheable(&result, exchange, scope: "public")
            return exchange.reply(result)
        default:
            return exchange.reply(try MCPPrompts.get(exchange.params))
        }
    }

    /// `resources/read`: the content is the key's own data, so a client keeps it privately and
    /// not at all (`ttlMs` 0: it changes with every task).
    private func read(_ exchange: MCPExchange) throws -> JSONObject {
        guard case .string(let uri)? = exchange.params["uri"] else { throw MCPError.invalidParams("\"uri\" must be a string.") }
        let principal = Principal.key(exchange.use)
        let tasks = context.services.tasks
        let content: JSON
        if uri == Self.openURI {
            var open: [WorkTask] = []
            var cursor: TaskCursor?
            repeat {
                let filter = TaskFilter(statuses: [.todo, .inProgress], limit: TaskFilter.maxLimit)
                let (page, next) = try tasks.list(principal, filter, after: cursor)
                open += page
                cursor = next
            } while cursor != nil
            content = .object(JSONObject([("tasks", .array(try open.map(MCPTools.taskJSON)))]))
        } else if uri.hasPrefix(Self.taskPrefix), uri.count > Self.taskPrefix.count {
            content = try MCPTools.taskJSON(try tasks.get(principal, taskID: String(uri.dropFirst(Self.taskPrefix.count))))
        } else {
            throw MCPError.invalidParams("Resource not found: \(uri)", restCode: "not_found")
        }
        let text = String(decoding: content.encoded(), as: UTF8.self)
        var result = JSONObject([("contents", .array([Self.entry([("uri", uri), ("mimeType", "application/json"), ("text", text)])]))])
        MCPRoutes.cacheable(&result, exchange, scope: "private", ttl: 0)
        return result
    }

    static func entry(_ members: [(String, String)]) -> JSON {
        .object(JSONObject(members.map { ($0.0, JSON.string($0.1)) }))
    }
}
