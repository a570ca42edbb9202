/// What a client needs to open TLS sessions: the protocols to offer through ALPN, the
/// trusted CAs, and how much of the peer's certificate is checked. The push clients take the
/// default: the system's CAs plus an optional extra PEM file (a test CA), the certificate
/// verified against them and against the host name.
public final class TLSClientContext {
    private let alpn: [String]
    /// The PEM file of CAs given (`Trust`), and whether the system's CAs join it.
    private let caFile: String?
    private let systemCAs: Bool
    private let verifiesPeer: Bool
    /// Whether a session checks the certificate against the name it was given.
    let checksName: Bool
    /// The OpenSSL context, made for the first session (`context()`).
    private var made: OpenSSLContext?

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

    /// Checks what can be wrong with the settings now (ALPN, a CA file that cannot be read or
    /// holds no certificate), so that a start with a bad file stops; the system's CAs wait for
    /// the first session. Reading Debian's bundle (about 140 certificates) takes 15 to 30 ms and
    /// about a megabyte, which the server paid at every start for each of its client contexts
    /// (Web Push's, OAuth's) even when it never dials out.
    public init(alpn: [String] = [], trust: Trust, check: PeerCheck) throws(TLSError) {
        self.alpn = alpn
        switch trust {
        case .system(let file): (caFile, systemCAs) = (file, true)
        case .only(let file): (caFile, systemCAs) = (file, false)
        }
        verifiesPeer = check != .none
        checksName = check == .chainAndName
        if systemCAs {
            // The file alone, without the system's CAs: the same errors, at a file's cost.
            _ = try OpenSSLContext.client(alpn: alpn, extraCAFile: verifiesPeer ? caFile : nil, verifyPeer: verifiesPeer,
                                          systemCAs: false)
        } else {
            // No system CAs to wait for: the context itself, now.
            _ = try context()
        }
    }

    /// The OpenSSL context for a session: made at the first call, then the same one. Loop
    /// thread only, as every session is.
    func context() throws(TLSError) -> OpenSSLContext {
        if let made { return made }
        let context = try OpenSSLContext.client(alpn: alpn, extraCAFile: caFile, verifyPeer: verifiesPeer, systemCAs: systemCAs)
        made = context
        return context
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
