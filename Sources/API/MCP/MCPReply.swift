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
    static func result(id: JSON, revision: MCPRevision, server: JSON, _ result: MCPResult) -> HTTPResponse {
        var members = result.members
        if revision.isModern {
            members["resultType"] = .string("complete")
            var meta = members["_meta"]?.objectValue ?? JSONObject()
            meta[MCPRevision.serverInfoKey] = server
            members["_meta"] = .object(meta)
        }
        return envelope(id: id, "result", members, prewritten: result.prewritten, status: 200)
    }

    /// `{"jsonrpc":"2.0","id":...,"error":{"code","message","data"?}}`; without `id` when the
    /// request's could not be read (`schema#jsonrpcerrorresponse`: the ID is optional, never
    /// `null`; `streamable-http.mdx`: "a JSON-RPC error response that has no id").
    static func error(id: JSON, _ error: MCPError) -> HTTPResponse {
        var body = JSONObject([("code", .number(JSONNumber(error.code))), ("message", .string(error.message))])
        if let data = error.data { body["data"] = data }
        return envelope(id: id, "error", body, status: error.httpStatus)
    }

    /// `{"jsonrpc":"2.0","id":...,"result"|"error":{...}}`, written member by member; a
    /// prewritten member's text goes in as it is.
    private static func envelope(id: JSON, _ name: StaticString, _ body: JSONObject,
                                 prewritten: MCPResult.Prewritten? = nil, status: Int) -> HTTPResponse {
        var writer = JSONWriter(capacity: 512 + (prewritten?.json.count ?? 0))
        writer.beginObject()
        writer.key("jsonrpc")
        writer.string("2.0")
        if !id.isNull {
            writer.key("id")
            writer.value(id)
        }
        writer.key(name)
        writer.beginObject()
        for member in body.members {
            writer.key(member.key)
            if let prewritten, member.key == prewritten.key {
                writer.rawValue(prewritten.json)
            } else {
                writer.value(member.value)
            }
        }
        writer.endObject()
        writer.endObject()
        return HTTPResponse(status: status, headers: headers, body: writer.bytes)
    }
}

/// The `result` of an answer: its members, and at most one (a tool's `structuredContent`)
/// whose value was written beforehand as JSON text, straight from the domain values, so no
/// value tree is built or parsed back for it. That member keeps its place among `members`;
/// the value it holds there is not written.
struct MCPResult {
    struct Prewritten {
        let key: String
        let json: [UInt8]
    }

    var members: JSONObject
    var prewritten: Prewritten?

    init(_ members: JSONObject, prewritten: Prewritten? = nil) {
        self.members = members
        self.prewritten = prewritten
    }
}
