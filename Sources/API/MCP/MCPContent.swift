import HTTP
import JSON
import Relaydeck

/// The resources and prompts of `mcp.md#resources` and `mcp.md#prompts`: `tasks://open`, the
/// template `tasks://task/{task_id}`, and the prompts `plan_work` and `status_report`
/// (`2026-07-28/server/resources`, `server/prompts`). The resources are listed and read only
/// with `tasks:read`; the prompts are text that reads nothing and are there for every key.
struct MCPContent {
    let context: APIContext

    /// Every resource is the key's tasks: listed and read with this scope only.
    static let scope = Scope.tasksRead

    static func mayRead(_ exchange: MCPExchange) -> Bool {
        exchange.use.scopes.contains(scope)
    }

    static let openURI = "tasks://open"
    static let taskPrefix = "tasks://task/"

    func answer(_ exchange: MCPExchange) async throws -> HTTPResponse {
        switch exchange.method {
        case "resources/list":
            let open = Self.entry([
                ("uri", Self.openURI), ("name", "open_tasks"), ("title", "Open tasks"),
                ("description", "The todo and in_progress tasks of this key, as JSON."), ("mimeType", "application/json"),
            ])
            var result = JSONObject([("resources", .array(Self.mayRead(exchange) ? [open] : []))])
            MCPRoutes.cacheable(&result, exchange, scope: "private", ttl: MCPServerInfo.scopedListTTLMillis)
            return exchange.reply(result)
        case "resources/templates/list":
            let task = Self.entry([
                ("uriTemplate", Self.taskPrefix + "{task_id}"), ("name", "task"), ("title", "One task"),
                ("description", "One task of this key, as JSON."), ("mimeType", "application/json"),
            ])
            var result = JSONObject([("resourceTemplates", .array(Self.mayRead(exchange) ? [task] : []))])
            MCPRoutes.cacheable(&result, exchange, scope: "private", ttl: MCPServerInfo.scopedListTTLMillis)
            return exchange.reply(result)
        case "resources/read":
            return try await read(exchange)
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
    private func read(_ exchange: MCPExchange) async throws -> HTTPResponse {
        guard case .string(let uri)? = exchange.params["uri"] else { throw MCPError.invalidParams("\"uri\" must be a string.") }
        guard Self.mayRead(exchange) else {
            // Not a tool, so no tool error: the JSON-RPC error of params the credential may
            // not use, as an unknown resource is, naming the scope.
            context.scopeRefusals.refused(Self.scope, surface: .mcp)
            let refusal = APIError.insufficientScope(Self.scope, for: "resources/read")
            throw MCPError.invalidParams(refusal.message, restCode: refusal.code)
        }
        let principal = Principal.key(exchange.use)
        let tasks = context.services.tasks
        var streamed: StreamedArray?
        // The content is JSON text written once from the tasks (`MCPTask`); a streamed one is
        // written by `streamed`, after the envelope, where its placeholder stands.
        let text: String
        if uri == Self.openURI {
            let (open, next) = try await openTasks(principal)
            if StreamedArray.worthStreaming(expectedBytes: open.reduce(0) { $0 + $1.pageBytes }) {
                var array = StreamedArray(count: open.count) { index, writer in MCPTask.write(open[index], to: &writer) }
                array.asStringContent = true
                array.open = Array("{\"tasks\":[".utf8)
                array.close = Array("]".utf8) + Self.rest(of: open.count, next)
                streamed = array
                text = array.placeholder
            } else {
                text = Self.text(capacity: open.reduce(64) { $0 + MCPTask.capacity($1) }) { writer in
                    writer.beginObject()
                    writer.key("tasks")
                    writer.beginArray()
                    for task in open { MCPTask.write(task, to: &writer) }
                    writer.endArray()
                    if let next {
                        for member in Self.truncation(shown: open.count, next) {
                            writer.key(member.key)
                            writer.value(member.value)
                        }
                    }
                    writer.endObject()
                }
            }
        } else if uri.hasPrefix(Self.taskPrefix), uri.count > Self.taskPrefix.count {
            let task = try await tasks.get(principal, taskID: String(uri.dropFirst(Self.taskPrefix.count)))
            text = Self.text(capacity: MCPTask.capacity(task)) { MCPTask.write(task, to: &$0) }
        } else {
            throw MCPError.invalidParams("Resource not found: \(FieldNames.shown(uri))", restCode: "not_found")
        }
        var result = JSONObject([("contents", .array([Self.entry([("uri", uri), ("mimeType", "application/json"), ("text", text)])]))])
        MCPRoutes.cacheable(&result, exchange, scope: "private", ttl: 0)
        let reply = exchange.reply(result)
        return try streamed?.answer(reply) ?? reply
    }

    /// The open tasks of the key, newest first, up to one page's byte budget in all
    /// (`TaskFilter.pageBytes`): a resource is read whole, so past that it is cut, with the
    /// cursor that `list_tasks` goes on from.
    private func openTasks(_ principal: Principal) async throws -> (tasks: [WorkTask], next: TaskCursor?) {
        var open: [WorkTask] = []
        var cursor: TaskCursor?
        var budget = TaskFilter.pageBytes
        repeat {
            let filter = TaskFilter(statuses: Self.openStatuses, limit: TaskFilter.maxLimit, byteBudget: budget)
            let (page, next) = try await context.services.tasks.list(principal, filter, after: cursor)
            open += page
            cursor = next
            budget -= page.reduce(0) { $0 + $1.pageBytes }
        } while cursor != nil && budget > 0
        return (open, cursor)
    }

    static let openStatuses: [WorkTask.Status] = [.todo, .inProgress]

    /// What a cut resource says after its tasks: that it is cut, and how to read on.
    static func truncation(shown: Int, _ next: TaskCursor) -> [(key: String, value: JSON)] {
        [("truncated", .bool(true)), ("next_cursor", .string(next.text)),
         ("note", .string("Only the newest \(shown) open tasks fit in this resource (\(TaskFilter.pageBytes / 1024 / 1024) MiB). "
                          + "Call list_tasks with status [\"todo\", \"in_progress\"] and cursor \"\(next.text)\" for the rest."))]
    }

    /// The members after `"tasks":[...]`, as JSON text, for a streamed resource: `}` alone, or
    /// the truncation's members and `}`.
    static func rest(of shown: Int, _ next: TaskCursor?) -> [UInt8] {
        guard let next else { return Array("}".utf8) }
        var writer = JSONWriter(capacity: 512)
        writer.value(.object(JSONObject(truncation(shown: shown, next))))
        // `{"truncated":...}` without its `{`, after a comma.
        return Array(",".utf8) + writer.bytes.dropFirst()
    }

    /// JSON text, as the `text` of a content.
    static func text(capacity: Int, _ write: (inout JSONWriter) -> Void) -> String {
        String(decoding: MCPTools.written(capacity: capacity, write), as: UTF8.self)
    }

    static func entry(_ members: [(String, String)]) -> JSON {
        .object(JSONObject(members.map { ($0.0, JSON.string($0.1)) }))
    }
}
