/// How the connection uses TLS, with libpq's names (`sslmode=`); `allow` (plain first, TLS
/// only if refused) is not offered: it gives nothing `prefer` does not, and reads like more.
public enum SSLMode: String, Sendable, Equatable, CaseIterable {
    /// Plain TCP; no `SSLRequest` is sent.
    case disable
    /// TLS when the server offers it, plain otherwise; the certificate is not checked. The
    /// default, as in libpq: it protects against a passive listener only.
    case prefer
    /// TLS or no connection; the certificate is not checked (unless `sslrootcert` is given,
    /// then as `verify-ca`, as libpq does).
    case require
    /// TLS, and the certificate chains to `sslrootcert` (or the system's CAs).
    case verifyCA = "verify-ca"
    /// `verify-ca`, and the certificate carries the host name (or address) dialed.
    case verifyFull = "verify-full"

    /// Whether a server that answers `SSLRequest` with `N` must be refused.
    var requiresTLS: Bool { self != .disable && self != .prefer }
}
