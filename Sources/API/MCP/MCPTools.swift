import HTTP
import JSON
import Relaydeck

/// `tools/call` (`2026-07-28/server/tools#calling-tools`): finds the tool, reads its
/// `arguments` with the REST surface's `FieldReader`, its readers of a task's and a question's
/// fields (`FieldReader+Tasks`, `+Questions`) and its text rules, calls the same domain service
/// as the REST route, and answers a `CallToolResult` whose `structuredContent` is written once,
/// straight from the domain values (`written`). A domain error becomes a tool error with the
/// REST `code` (`mcp.md#tools`), once, here.
final class MCPTools {
    let context: APIContext
    var services: Services { context.services }

    /// What a tool gives back: a result now, or a wait (`ask_user`, `get_answer`,
    /// `check_inbox`) that answers later with the same kind of result. A result's structured
    /// content is its JSON text (`written`).
    enum Answer {
        case result([UInt8], summary: String)
        /// A result with one large array in it, written as the client reads
        /// (`StreamedArray`; the structured content holds its placeholder).
        case streamed([UInt8], summary: String, StreamedArray)
        /// An answer already written (a wait that did not need to wait).
        case response(HTTPResponse)
        case wait(Wait)
    }

    /// One call: the tool, its arguments, and the inbox count at its start
    /// (`inbox.md#mcp-tools`: "The number is the one at the start of the call").
    struct Invocation {
        let tool: MCPTool
        let exchange: MCPExchange
        let unread: Int
        var use: KeyUse { exchange.use }

        /// The JSON-RPC answer of a result that came later (a wait), with `unread` as the
        /// inbox line's number.
        func reply(_ structured: [UInt8], summary: String, unread: Int? = nil) -> HTTPResponse {
            exchange.reply(MCPToolResult.success(structured, summary: summary, unread: unread ?? self.unread))
        }

        func replyFailure(_ error: APIError) -> HTTPResponse {
            exchange.reply(MCPToolResult.failure(error, tool: tool, unread: unread))
        }
    }

    init(_ context: APIContext) {
        self.context = context
    }

    func call(_ exchange: MCPExchange, _ note: inout RecordNote) async throws -> Outcome {
        guard case .string(let name)? = exchange.params["name"] else {
            throw MCPError.invalidParams("\"name\" must be the name of a tool.")
        }
        guard let tool = MCPToolCatalog.tool(named: name) else {
            // `2026-07-28/server/tools#error-handling`: an unknown tool is a protocol error.
            throw MCPError.invalidParams("Unknown tool: \(FieldNames.shown(name)). Call tools/list for the tools.", restCode: "not_found")
        }
        note.action = name
        let arguments = exchange.params["arguments"] ?? .object(JSONObject())
        guard case .object = arguments else { throw MCPError.invalidParams("\"arguments\" must be an object.") }
        let scopes = exchange.use.scopes
        // The inbox line says "Call check_inbox": only to a credential that may.
        let unread = scopes.contains(.inbox) ? (try? await services.inbox.unread(keyID: exchange.use.keyID)) ?? 0 : 0
        let invocation = Invocation(tool: tool, exchange: exchange, unread: unread)
        guard scopes.contains(tool.scope) else {
            // A tool the credential may not call is a tool error (issue 24), so the model reads
            // which scope is missing; its arguments are not looked at.
            let refusal = APIError.insufficientScope(tool.scope, for: tool.name)
            context.scopeRefusals.refused(tool.scope, surface: .mcp)
            note.failure = refusal
            return .respond(invocation.replyFailure(refusal))
        }
        do {
            switch try await run(invocation, arguments) {
            case .result(let structured, let summary):
                return .respond(invocation.reply(structured, summary: summary))
            case .streamed(let structured, let summary, let array):
                return .respond(try array.answer(invocation.reply(structured, summary: summary)))
            case .response(let response):
                return .respond(response)
            case .wait(var wait):
                // A wait that fails later (its question gone, the store away) is a tool error
                // like any other, never the REST body.
                wait.failed = { invocation.replyFailure($0) }
                return .park(wait)
            }
        } catch {
            let failure = APIError.from(error)
            note.failure = failure
            return .respond(invocation.replyFailure(failure))
        }
    }

    private func run(_ invocation: Invocation, _ arguments: JSON) async throws -> Answer {
        var reader = FieldReader(body: arguments, prefix: "")
        switch invocation.tool.name {
        case "create_task": return try await createTask(invocation, &reader)
        case "list_tasks": return try await listTasks(invocation, &reader)
        case "get_task": return try await getTask(invocation, &reader)
        case "update_task": return try await updateTask(invocation, arguments)
        case "delete_task": return try await deleteTask(invocation, &reader)
        case "notify_user": return try await notifyUser(invocation, &reader)
        case "ask_user": return try await askUser(invocation, &reader)
        case "get_answer": return try await getAnswer(invocation, &reader)
        case "check_inbox": return try await checkInbox(invocation, &reader)
        case "send_message": return try await sendMessage(invocation, &reader)
        case "list_agents": return try await listAgents(invocation, &reader)
        default: throw APIError.defect("the tool \(invocation.tool.name) has no implementation")
        }
    }

    /// Whether the key may hold one more waiting call (`mcp.md#ask-the-person`:
    /// `Limits.waitingCallsPerKey` on one process, with the REST requests that wait), by the
    /// rule the delivery applies.
    /// A tool asks before it parks: `ask_user` still asks above it, the others fail as tools.
    func mayWait(_ use: KeyUse) -> Bool {
        context.wakeups.admission(for: .key(use)) == nil
    }

    static let tooManyWaiting = WaitRefusal.keyFull.toolError

    /// A tool's structured content: JSON text written once by `write`, from the domain
    /// values (a task with `MCPTask`, the others with their REST `write(to:)`).
    static func written(capacity: Int = 512, _ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        write(&writer)
        return writer.bytes
    }
}
