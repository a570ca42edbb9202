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
    /// (`server/discover.mdx`): `server` is that name's JSON text, written once
    /// (`MCPServerInfo.implementationText`). Both are written as the members are, the way
    /// `members["resultType"] = ...` and `_meta[serverInfoKey] = ...` would place them (a
    /// member already there keeps its place, a new one comes last), without copying the
    /// members or building the server's object for each answer: that was 3% of an
    /// `update_task` call (`bench/cost.py --callgrind mcp`).
    static func result(id: JSON, revision: MCPRevision, server: [UInt8], _ result: MCPResult) -> HTTPResponse {
        envelope(id: id, "result", result.members, prewritten: result.prewritten, server: revision.isModern ? server : nil,
                 status: 200)
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
    /// prewritten member's text goes in as it is. With `server` (a modern result), the
    /// `resultType` and the server's name in `_meta` as `result` describes.
    private static func envelope(id: JSON, _ name: StaticString, _ body: JSONObject,
                                 prewritten: MCPResult.Prewritten? = nil, server: [UInt8]? = nil, status: Int) -> HTTPResponse {
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
        var wroteType = false
        var wroteMeta = false
        for member in body.members {
            writer.key(member.key)
            if let prewritten, member.key == prewritten.key {
                writer.rawValue(prewritten.json)
            } else if server != nil, member.key == "resultType" {
                writer.string("complete")
                wroteType = true
            } else if let server, member.key == "_meta" {
                meta(member.value.objectValue ?? JSONObject(), server: server, to: &writer)
                wroteMeta = true
            } else {
                writer.value(member.value)
            }
        }
        if let server {
            if !wroteType {
                writer.key("resultType")
                writer.string("complete")
            }
            if !wroteMeta {
                writer.key("_meta")
                meta(JSONObject(), server: server, to: &writer)
            }
        }
        writer.endObject()
        writer.endObject()
        return HTTPResponse(status: status, headers: headers, body: writer.bytes)
    }

    /// A result's `_meta` with the server's name in it, where a key of that name would be.
    private static func meta(_ meta: JSONObject, server: [UInt8], to writer: inout JSONWriter) {
        writer.beginObject()
        var wroteServer = false
        for member in meta.members {
            writer.key(member.key)
            if member.key == MCPRevision.serverInfoKey {
                writer.rawValue(server)
                wroteServer = true
            } else {
                writer.value(member.value)
            }
        }
        if !wroteServer {
            writer.key(MCPRevision.serverInfoKey)
            writer.rawValue(server)
        }
        writer.endObject()
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
