import JSON

/// A JSON-RPC error of the MCP endpoint, with the HTTP status it travels in and the REST
/// `code` its activity entry gets. The codes: JSON-RPC 2.0 (`-32700` parse error, `-32600`
/// invalid request, `-32601` method not found, `-32602` invalid params, `-32603` internal),
/// and the MCP range (`2026-07-28/basic/index#error-codes`: `-32020` HeaderMismatch,
/// `-32022` UnsupportedProtocolVersion).
struct MCPError: Error {
    let code: Int
    let message: String
    var data: JSON?
    /// `streamable-http.mdx`: a parse error and a header or version refusal are `400`, an
    /// unknown method of `2026-07-28` is `404`; an error inside a served request is `200`.
    var httpStatus: Int
    /// The activity log's `code` (`rest-api.md#entry`).
    var restCode: String

    init(_ code: Int, _ message: String, data: JSON? = nil, httpStatus: Int = 200, restCode: String = "bad_request") {
        self.code = code
        self.message = message
        self.data = data
        self.httpStatus = httpStatus
        self.restCode = restCode
    }

    static let parseError = MCPError(-32700, "Parse error: the body is not valid JSON.", httpStatus: 400)

    static func invalidRequest(_ why: String) -> MCPError {
        MCPError(-32600, "Invalid Request: \(why)", httpStatus: 400)
    }

    /// `streamable-http.mdx#protocol-version-header`: `404` for `2026-07-28`; the earlier
    /// revisions answer it inside a `200` like any JSON-RPC error.
    static func methodNotFound(_ method: String, modern: Bool) -> MCPError {
        MCPError(-32601, "Method not found: \(method)", httpStatus: modern ? 404 : 200, restCode: "not_found")
    }

    static func invalidParams(_ why: String, restCode: String = "validation_failed") -> MCPError {
        MCPError(-32602, "Invalid params: \(why)", restCode: restCode)
    }

    static func headerMismatch(_ why: String) -> MCPError {
        MCPError(-32020, "Header mismatch: \(why)", httpStatus: 400)
    }

    /// `basic/versioning#protocol-version-negotiation`: the error names what the server
    /// supports and what was asked.
    static func unsupportedVersion(_ requested: String) -> MCPError {
        let supported = JSON.array(MCPRevision.allCases.map { .string($0.rawValue) })
        let data = JSON.object(JSONObject([("supported", supported), ("requested", .string(requested))]))
        return MCPError(-32022, "Unsupported protocol version", data: data, httpStatus: 400)
    }

    static let internalError = MCPError(-32603, "Internal error", restCode: "internal")
}
