import HTTP

/// `2026-07-28/basic/transports/streamable-http#security-endpoint`: a request whose `Origin`
/// is not the server's own is `403` (DNS rebinding). The own origin is `PUBLIC_URL` when set,
/// else the scheme-less match of the `Host` header (`mcp.md#connect`). A request without
/// `Origin` (every agent that is not a browser) passes.
struct MCPOrigin {
    /// `PUBLIC_URL`, normalized (`https://tasks.example.com`).
    let publicOrigin: String?

    static let refused = APIError(403, "forbidden", "The Origin header is not the origin of this server.")

    func check(_ head: HTTPRequestHead) throws(APIError) {
        let origins = head.headers("origin")
        guard !origins.isEmpty else { return }
        guard origins.count == 1 else { throw Self.refused }
        let origin = origins[0].lowercased()
        if let publicOrigin {
            guard origin == publicOrigin.lowercased() else { throw Self.refused }
            return
        }
        guard let host = head.header("host")?.lowercased(), !host.isEmpty,
              origin == "http://\(host)" || origin == "https://\(host)" else {
            throw Self.refused
        }
    }
}
