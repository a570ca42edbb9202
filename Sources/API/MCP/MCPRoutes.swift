import HTTP
import JSON
import Relaydeck

/// `POST /mcp` (`mcp.md`): the Model Context Protocol on the Streamable HTTP transport,
/// stateless. `GET`, `DELETE` and `PUT` are `405` from the router (`mcp.md#connect`: there is
/// no `subscriptions/listen` stream). Before the credential: the `Origin` (`403`). The
/// credential is the gate's, also from `?key=`; then the JSON-RPC message, the revision and
/// its headers, the method.
final class MCPRoutes: RouteGroup {
    let context: APIContext
    let tools: MCPTools
    let server: MCPServerInfo

    init(_ context: APIContext) {
        self.context = context
        tools = MCPTools(context)
        server = MCPServerInfo(version: context.configuration.serverVersion)
    }

    var routes: [Route] {
        var post = Endpoint(.post, .apiKey { [self] call, use in await serve(&call, use) })
        post.keyInQuery = true
        post.failureAnswer = { request, error in Self.failureAnswer(request, error) }
        post.screen = { [configuration = context.configuration] request throws(APIError) in
            try OwnOrigin.screen(request.head, configuration)
        }
        return [Route("/mcp", surface: .mcp, [post])]
    }

    /// One POST. A refusal before the method is read keeps the action `POST /mcp`
    /// (`rest-api.md#activity-log`); a notification is `202` and has no entry.
    func serve(_ call: inout Call, _ use: KeyUse) async -> Outcome {
        let message: MCPMessage
        do {
            message = try MCPMessage.parse(call.request.body)
        } catch {
            return refuse(error, id: .null, &call.note)
        }
        guard case .request(let id) = message.kind else {
            call.note.noEntry = true
            return .respond(MCPReply.accepted)
        }
        let revision: MCPRevision
        do {
            revision = try MCPRevision.of(message, head: call.request.head)
        } catch {
            return refuse(error, id: id, &call.note)
        }
        let exchange = MCPExchange(id: id, method: message.method, params: message.params, revision: revision,
                                   use: use, head: call.request.head, server: server)
        call.note.action = Self.methods(revision).contains(message.method) ? message.method : "unknown method"
        if let client = exchange.clientInfo {
            call.note.client = client
            // `rest-api.md#key`: `last_client` follows the most recent MCP request.
            try? await context.services.keys.recordClient(use, client)
        }
        do {
            guard message.paramsAreObject else { throw MCPError.invalidParams("\"params\" must be an object.") }
            return try await dispatch(exchange, &call.note)
        } catch {
            return refuse(error, id: id, &call.note)
        }
    }

    /// The methods of each revision (`2026-07-28` removed `initialize` and `ping`, and added
    /// `server/discover`).
    static func methods(_ revision: MCPRevision) -> Set<String> {
        revision.isModern ? modernMethods : olderMethods
    }

    // Made once: building them for each call was two sets and a union twice a call, 1.5% of
    // an `update_task` (`bench/cost.py --callgrind mcp`).
    private static let sharedMethods: Set = ["tools/list", "tools/call", "resources/list", "resources/templates/list",
                                             "resources/read", "prompts/list", "prompts/get"]
    private static let modernMethods = sharedMethods.union(["server/discover"])
    private static let olderMethods = sharedMethods.union(["initialize", "ping"])

    private func dispatch(_ exchange: MCPExchange, _ note: inout RecordNote) async throws -> Outcome {
        guard Self.methods(exchange.revision).contains(exchange.method) else {
            throw MCPError.methodNotFound(exchange.method, modern: exchange.revision.isModern)
        }
        if exchange.revision.isModern, exchange.meta?[MCPRevision.clientCapabilitiesKey]?.objectValue == nil {
            // `schema#requestmetaobject`: the client's capabilities are required.
            throw MCPError.invalidParams("params._meta needs \(MCPRevision.clientCapabilitiesKey), an object.")
        }
        switch exchange.method {
        case "server/discover":
            return .respond(exchange.reply(server.discover()))
        case "initialize":
            return .respond(exchange.reply(server.initialize(requested: exchange.params["protocolVersion"]?.stringValue)))
        case "ping":
            return .respond(exchange.reply(JSONObject()))
        case "tools/list":
            var result = JSONObject([("tools", MCPToolCatalog.listed(for: exchange.use.scopes))])
            Self.cacheable(&result, exchange, scope: "private", ttl: MCPServerInfo.scopedListTTLMillis)
            return .respond(exchange.reply(result))
        case "tools/call":
            return try await tools.call(exchange, &note)
        default:
            return .respond(try await MCPContent(context: context).answer(exchange))
        }
    }

    /// `server/utilities/caching`: `ttlMs` and `cacheScope` on the lists and reads of
    /// `2026-07-28` (`CacheableResult`); the earlier revisions do not have them.
    static func cacheable(_ result: inout JSONObject, _ exchange: MCPExchange, scope: String,
                          ttl: Int = MCPServerInfo.listTTLMillis) {
        guard exchange.revision.isModern else { return }
        result["ttlMs"] = .number(JSONNumber(ttl))
        result["cacheScope"] = .string(scope)
    }

    /// A JSON-RPC error answer; its activity entry gets the error.
    private func refuse(_ error: any Error, id: JSON, _ note: inout RecordNote) -> Outcome {
        let failure = (error as? MCPError) ?? Self.mcpError(APIError.from(error))
        note.failure = APIError(failure.httpStatus, failure.restCode, failure.message)
        return .respond(MCPReply.error(id: id, failure))
    }

    /// A failure of the server around the request (the store away or busy, the turn's COMMIT
    /// failed): a JSON-RPC error with the request's ID when it has one, in the HTTP status and
    /// with the headers (`Retry-After`) the REST answer has, so a client's JSON-RPC layer reads
    /// it as an error instead of a body it cannot parse.
    static func failureAnswer(_ request: HTTPRequest, _ error: APIError) -> HTTPResponse {
        var id = JSON.null
        if let message = try? MCPMessage.parse(request.body), case .request(let requestID) = message.kind { id = requestID }
        var answer = MCPReply.error(id: id, MCPError(-32603, error.message, httpStatus: error.status, restCode: error.code))
        answer.headers += error.headers
        return answer
    }

    /// An error of the REST catalogue outside a tool: a missing resource is `-32602`
    /// (`changelog.mdx`, minor change 6), anything else `-32603` with its message.
    static func mcpError(_ error: APIError) -> MCPError {
        if error.status == 404 { return .invalidParams(error.message, restCode: error.code) }
        return MCPError(-32603, error.message, restCode: error.code)
    }
}
