import HTTP
import JSON

/// The JSON-RPC answers of `/mcp` (`2026-07-28/basic/index#responses`), one JSON object per
/// POST (`streamable-http.mdx#sending-messages`: `Content-Type: application/json`).
enum MCPReply {
    static let headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]

    /// `streamable-http.mdx#sending-messages`: an accepted notification is `202` with no body.
    static var accepted: HTTPResponse { HTTPResponse(status: 202) }

    /// `{"jsonrpc":"2.0","id":...,"result":{...}}`. For `2026-07-28` every result says
    /// `resultType` (`changelog.mdx`, major change 8) and names the server in `_meta`
    /// (`server/discover.mdx`).
    static func result(id: JSON, revision: MCPRevision, server: JSON, _ result: JSONObject) -> HTTPResponse {
        var result = result
        if revision.isModern {
            result["resultType"] = .string("complete")
            var meta = result["_meta"]?.objectValue ?? JSONObject()
            meta[MCPRevision.serverInfoKey] = server
            result["_meta"] = .object(meta)
        }
        return envelope(id: id, ("result", .object(result)), status: 200)
    }

    /// `{"jsonrpc":"2.0","id":...,"error":{"code","message","data"?}}`; without `id` when the
    /// request's could not be read (`schema#jsonrpcerrorresponse`: the ID is optional, never
    /// `null`; `streamable-http.mdx`: "a JSON-RPC error response that has no id").
    static func error(id: JSON, _ error: MCPError) -> HTTPResponse {
        var body = JSONObject([("code", .number(JSONNumber(error.code))), ("message", .string(error.message))])
        if let data = error.data { body["data"] = data }
        return envelope(id: id, ("error", .object(body)), status: error.httpStatus)
    }

    private static func envelope(id: JSON, _ member: (String, JSON), status: Int) -> HTTPResponse {
        var members: [(key: String, value: JSON)] = [("jsonrpc", .string("2.0"))]
        if !id.isNull { members.append(("id", id)) }
        members.append((member.0, member.1))
        let message = JSON.object(JSONObject(members))
        var writer = JSONWriter(capacity: 512)
        writer.value(message)
        return HTTPResponse(status: status, headers: headers, body: writer.bytes)
    }
}
