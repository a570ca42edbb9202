import HTTP
import JSON
import Relaydeck

/// One JSON-RPC request of `/mcp` that passed the transport's checks: what it asks, in which
/// revision, for which key; and how its answer is written.
struct MCPExchange {
    let id: JSON
    let method: String
    let params: JSONObject
    let revision: MCPRevision
    let use: KeyUse
    let head: HTTPRequestHead
    let server: MCPServerInfo

    func reply(_ result: JSONObject) -> HTTPResponse {
        reply(MCPResult(result))
    }

    func reply(_ result: MCPResult) -> HTTPResponse {
        MCPReply.result(id: id, revision: revision, server: server.implementationText, result)
    }

    func fail(_ error: MCPError) -> HTTPResponse {
        MCPReply.error(id: id, error)
    }

    /// The `_meta` of a `2026-07-28` request (`basic/index#meta`).
    var meta: JSONObject? { params["_meta"]?.objectValue }

    /// The client's `clientInfo`: from `_meta` on every `2026-07-28` request, from the params
    /// of `initialize` in the earlier revisions (which send it nowhere else). A value that is
    /// not a name and a version of sane length is ignored, never an error: it only labels.
    var clientInfo: Key.Client? {
        let info = revision.isModern ? meta?[MCPRevision.clientInfoKey] : (method == "initialize" ? params["clientInfo"] : nil)
        guard let name = info?["name"]?.stringValue, let version = info?["version"]?.stringValue,
              name.utf8.count <= Self.maxClientBytes, version.utf8.count <= Self.maxClientBytes,
              (1...Self.maxClientText).contains(name.count), version.count <= Self.maxClientText,
              !TextRules.hasControlCharacters(name), !TextRules.hasControlCharacters(version) else { return nil }
        return Key.Client(name: name, version: version)
    }

    /// The longest client name or version kept.
    static let maxClientText = 100
    /// Its bound in bytes, checked first (as `TextRule` does): 100 characters may otherwise be
    /// a megabyte of combining marks, kept as `last_client` and shown in every agent list.
    static let maxClientBytes = 600
}
