import HTTP

/// The server's own origin and WebAuthn relying party for one request. With `PUBLIC_URL` set
/// they come from it (`https://tasks.example.com`, RP ID `tasks.example.com`); without it from
/// the `Host` header, as the MCP endpoint's `Origin` check does, with the scheme the server
/// itself speaks: `https://HOST` with `TLS_CERT_FILE`, else `http://HOST` (a browser on
/// `localhost`).
struct WebOrigin {
    /// `scheme://host[:port]`, as a browser writes it in `Origin` and in the client data.
    let origin: String
    /// The host without its port: the RP ID of passkeys.
    let relyingPartyID: String
    /// Whether the origin is HTTPS: the session cookie is then `__Host-` and `Secure`.
    let secure: Bool


    init?(_ head: HTTPRequestHead, publicOrigin: String?, servesHTTPS: Bool) {
        let origin: String
        if let publicOrigin {
            origin = publicOrigin.lowercased()
        } else {
            guard let host = head.header("host")?.lowercased(), !host.isEmpty, !host.contains("/"), !host.contains("@") else { return nil }
            origin = (servesHTTPS ? "https://" : "http://") + host
        }
        let authority: Substring
        if origin.hasPrefix("https://") {
            authority = origin.dropFirst(8)
        } else if origin.hasPrefix("http://") {
            authority = origin.dropFirst(7)
        } else {
            return nil
        }
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
        } else {
            host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        }
        guard !host.isEmpty else { return nil }
        self.origin = origin
        relyingPartyID = String(host)
        secure = origin.hasPrefix("https://")
    }
}
