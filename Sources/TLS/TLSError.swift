/// Why a TLS context could not be made or a session failed, with OpenSSL's own words
/// (its error queue, or the certificate verification result) where it gave any.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A context could not be built: a file is missing or not PEM, a key does not
        /// match its certificate, a setting was refused.
        case configuration
        /// The handshake failed: the peer's certificate did not verify, no protocol in
        /// common, a TLS alert.
        case handshake
        /// Reading or writing an established session failed.
        case io
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
