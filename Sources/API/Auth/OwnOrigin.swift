import HTTP

/// Whether a browser's `Origin` is this server's own: `PUBLIC_URL` when set, else either
/// scheme with the request's `Host` (a proxy in front may speak HTTPS for a plain server).
/// The MCP endpoint checks it against DNS rebinding
/// (`2026-07-28/basic/transports/streamable-http#security-endpoint`, `mcp.md#connect`), the
/// web console against pages elsewhere using its session cookie.
enum OwnOrigin {
    static let refused = APIError(403, "forbidden", "The Origin header is not the origin of this server.")

    /// Exactly one `Origin`, the server's own: a change made with the session cookie. A
    /// missing one is refused too.
    static func require(_ head: HTTPRequestHead, publicOrigin: String?) throws(APIError) {
        let origins = head.headers("origin")
        guard origins.count == 1 else { throw refused }
        try checkOne(origins[0], head, publicOrigin: publicOrigin)
    }

    /// An `Origin`, when sent, must be one and the server's own; a client that is not a
    /// browser (every agent) sends none and passes.
    static func checkIfPresent(_ head: HTTPRequestHead, publicOrigin: String?) throws(APIError) {
        let origins = head.headers("origin")
        guard !origins.isEmpty else { return }
        guard origins.count == 1 else { throw refused }
        try checkOne(origins[0], head, publicOrigin: publicOrigin)
    }

    private static func checkOne(_ origin: String, _ head: HTTPRequestHead, publicOrigin: String?) throws(APIError) {
        let origin = origin.lowercased()
        if let publicOrigin {
            guard origin == publicOrigin.lowercased() else { throw refused }
            return
        }
        guard let host = head.header("host")?.lowercased(), !host.isEmpty,
              origin == "http://\(host)" || origin == "https://\(host)" else { throw refused }
    }
}
