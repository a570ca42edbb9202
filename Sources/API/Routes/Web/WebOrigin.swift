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

    static let refused = APIError(403, "forbidden", "The Origin header is not the origin of this server.")

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

    /// A request that changes something with the session cookie must come from a page of this
    /// server (the browser's `Origin`): anything else is `403`, also a missing `Origin`.
    /// Without `PUBLIC_URL` the `Host` header may be reached over HTTP or through an HTTPS
    /// proxy, so both schemes are the server's own then.
    static func requireOwn(_ head: HTTPRequestHead, publicOrigin: String?) throws(APIError) {
        let origins = head.headers("origin")
        guard origins.count == 1 else { throw refused }
        try checkPresent(origins[0], head, publicOrigin: publicOrigin)
    }

    /// For the sign-in requests made without a cookie: an `Origin`, when sent, must be the
    /// server's own (a page elsewhere cannot sign a browser in to an account of its choosing);
    /// a client that is not a browser sends none.
    static func allowAbsent(_ head: HTTPRequestHead, publicOrigin: String?) throws(APIError) {
        let origins = head.headers("origin")
        guard !origins.isEmpty else { return }
        guard origins.count == 1 else { throw refused }
        try checkPresent(origins[0], head, publicOrigin: publicOrigin)
    }

    private static func checkPresent(_ origin: String, _ head: HTTPRequestHead, publicOrigin: String?) throws(APIError) {
        let origin = origin.lowercased()
        if let publicOrigin {
            guard origin == publicOrigin.lowercased() else { throw refused }
            return
        }
        guard let host = head.header("host")?.lowercased(), !host.isEmpty,
              origin == "http://\(host)" || origin == "https://\(host)" else { throw refused }
    }
}
