/// What a client needs to open TLS sessions: the protocols to offer through ALPN, the
/// trusted CAs, and how much of the peer's certificate is checked. The push clients take the
/// default: the system's CAs plus an optional extra PEM file (a test CA), the certificate
/// verified against them and against the host name.
public final class TLSClientContext {
    let context: OpenSSLContext
    /// Whether a session checks the certificate against the name it was given.
    let checksName: Bool

    /// Which certificates a client believes.
    public enum Trust: Sendable, Equatable {
        /// The system's CAs, plus the PEM file given, if any.
        case system(extraCAFile: String?)
        /// Only the CAs of this PEM file (PostgreSQL's `sslrootcert`): a private CA, and no
        /// public CA can vouch for the database.
        case only(caFile: String)
    }

    /// How much of the peer is checked (PostgreSQL's `sslmode` names the three).
    public enum PeerCheck: Sendable, Equatable {
        /// Nothing: the session is encrypted but the peer unknown (`require`).
        case none
        /// The certificate chains to a trusted CA, whatever name it carries (`verify-ca`).
        case chain
        /// The chain, and the certificate carries the name (or address) dialed (`verify-full`).
        case chainAndName
    }

    /// `alpn`: protocol names in order of preference, such as `["h2"]`.
    public convenience init(alpn: [String] = [], extraCAFile: String? = nil) throws(TLSError) {
        try self.init(alpn: alpn, trust: .system(extraCAFile: extraCAFile), check: .chainAndName)
    }

    public init(alpn: [String] = [], trust: Trust, check: PeerCheck) throws(TLSError) {
        let extra: String?
        let system: Bool
        switch trust {
        case .system(let file): (extra, system) = (file, true)
        case .only(let file): (extra, system) = (file, false)
        }
        context = try OpenSSLContext.client(alpn: alpn, extraCAFile: extra, verifyPeer: check != .none, systemCAs: system)
        checksName = check == .chainAndName
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
