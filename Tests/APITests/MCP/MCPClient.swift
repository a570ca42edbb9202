@testable import API
import JSON

/// MCP requests through `APIHarness` as a client of each revision sends them.
struct MCPClient {
    let api: APIHarness
    let secret: String
    var clientName = "claude-code"

    /// A `2026-07-28` request: `_meta` and the three headers, each of which a test can change.
    func modern(_ method: String, _ params: String = "", id: String = "1", name: String? = nil,
                headers: [(String, String)]? = nil, version: String = "2026-07-28") throws -> Answer {
        let meta = #""_meta":{"io.modelcontextprotocol/protocolVersion":"\#(version)","io.modelcontextprotocol/clientInfo":{"name":"\#(clientName)","version":"2.1"},"io.modelcontextprotocol/clientCapabilities":{}}"#
        let body = #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":{\#(params.isEmpty ? "" : params + ",")\#(meta)}}"#
        var sent = headers ?? [("MCP-Protocol-Version", version), ("Mcp-Method", method)]
        if headers == nil, let name { sent.append(("Mcp-Name", name)) }
        return try api.send("POST", "/mcp", [bearer(secret)] + sent, body: body)
    }

    /// A request of an earlier revision (no `_meta`).
    func legacy(_ method: String, _ params: String = "{}", id: String = "1", version: String? = "2025-06-18") throws -> Answer {
        let body = #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
        return try api.send("POST", "/mcp", [bearer(secret)] + (version.map { [("MCP-Protocol-Version", $0)] } ?? []), body: body)
    }

    /// A tool call of `2026-07-28`; the result object.
    func call(_ tool: String, _ arguments: String = "{}") throws -> JSON {
        let answer = try modern("tools/call", #""name":"\#(tool)","arguments":\#(arguments)"#, name: tool)
        guard answer.status == 200, let result = try answer.json()["result"] else { throw HarnessError.notAnImmediateAnswer }
        return result
    }

    /// The text of a tool result.
    static func text(_ result: JSON) -> String {
        result["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
    }
}

extension APIHarness {
    /// The activity entries of a key of the account of `token`, newest first.
    func entries(token: String, keyID: String) throws -> [JSON] {
        try send("GET", "/v1/keys/\(keyID)/activity", [bearer(token)]).json()["items"]?.arrayValue ?? []
    }
}
