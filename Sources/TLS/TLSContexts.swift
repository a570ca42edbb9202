/// What a client needs to open TLS sessions: the protocols to offer through ALPN, and the
/// trusted CAs (the system's, plus an optional extra PEM file such as a test CA). The
/// peer's certificate is always verified against them and against the host name.
public final class TLSClientContext {
    let context: OpenSSLContext

    /// `alpn`: protocol names in order of preference, such as `["h2"]`.
    public init(alpn: [String] = [], extraCAFile: String? = nil) throws(TLSError) {
        context = try OpenSSLContext.client(alpn: alpn, extraCAFile: extraCAFile, verifyPeer: true)
    }
}

/// What a server needs to accept TLS sessions: its certificate chain and key, and the
/// protocols it speaks (ALPN, first match of its own list wins). TLS 1.2 and 1.3.
/// `reload` swaps in a renewed certificate for the connections that come after it.
/// Loop thread only (the context is not locked).
public final class TLSServerContext {
    private(set) var current: OpenSSLContext
    public let alpn: [String]

    public init(certificateChainFile: String, privateKeyFile: String, alpn: [String] = []) throws(TLSError) {
        self.alpn = alpn
        current = try OpenSSLContext.server(certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile, alpn: alpn)
    }

    /// Loads the files again. On failure the context keeps its old certificate and the
    /// error says why; sessions already open are never affected.
    public func reload(certificateChainFile: String, privateKeyFile: String) throws(TLSError) {
        current = try OpenSSLContext.server(certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile, alpn: alpn)
    }
}
