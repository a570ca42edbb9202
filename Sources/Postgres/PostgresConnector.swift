import EventLoop
import TLS

/// Makes connections with one set of settings: the TLS context (with `sslrootcert` read) is
/// made once, here, so a CA file that cannot be read is refused before the first connect.
/// Loop thread only.
public final class PostgresConnector {
    public let settings: PostgresSettings
    public let limits: PostgresLimits
    private let loop: EventLoop
    private let tlsContext: TLSClientContext?

    public init(settings: PostgresSettings, limits: PostgresLimits = PostgresLimits(), loop: EventLoop) throws(PostgresError) {
        self.settings = settings
        self.limits = limits
        self.loop = loop
        tlsContext = try Self.tlsContext(for: settings)
    }

    /// Opens a connection; `completion` runs on a later turn with it, ready for statements,
    /// or with why there is none (within `connect_timeout`, else `limits.connectTimeout`).
    public func connect(completion: @escaping (Result<PostgresConnection, PostgresError>) -> Void) {
        let connection = PostgresConnection(settings: settings, limits: limits, loop: loop, tlsContext: tlsContext)
        let timeout = settings.connectTimeoutSeconds.map { TimeSpan.seconds($0) } ?? limits.connectTimeout
        connection.start(timeout: timeout, completion: completion)
    }

    /// `sslmode` as a TLS client context: `require` checks nothing (unless `sslrootcert` is
    /// given: then as `verify-ca`, as libpq does), `verify-ca` the chain, `verify-full` the
    /// chain and the host name; `sslrootcert` replaces the system's CAs.
    static func tlsContext(for settings: PostgresSettings) throws(PostgresError) -> TLSClientContext? {
        let check: TLSClientContext.PeerCheck
        switch settings.sslMode {
        case .disable: return nil
        case .prefer: check = .none
        case .require: check = settings.sslRootCert == nil ? .none : .chain
        case .verifyCA: check = .chain
        case .verifyFull: check = .chainAndName
        }
        let trust: TLSClientContext.Trust = settings.sslRootCert.map { .only(caFile: $0) } ?? .system(extraCAFile: nil)
        do {
            return try TLSClientContext(trust: trust, check: check)
        } catch {
            throw PostgresError(.tls, error.description)
        }
    }
}
