/// Why a request got no answer, each with its words for a log line. An answer of any status
/// is not a failure: the caller judges `4xx` and `5xx` itself.
public enum HTTPClientFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request was not sent: a URL this client was not allowed to use (`http:` unless the
    /// client allows it), or a method or header field that cannot be sent as it is.
    case invalidRequest(String)
    /// Every address of the host is one the client's `admits` rule refuses; none was
    /// connected to.
    case blockedAddress(String)
    /// The name has no address (it does not exist, or has none).
    case noSuchName(String)
    /// The lookup failed for now (no DNS server answered); it may work later.
    case lookupFailed(String)
    /// No address took the connection.
    case connect(String)
    /// TLS could not be set up, in OpenSSL's words (`certificate verification failed: ...`).
    case tls(String)
    /// The deadline passed first (the lookup, the connect, the handshake and the answer all
    /// count), whether the peer was silent or trickled.
    case timeout(String)
    /// The answer's head or body is over its bound (a `Content-Length` over it is refused
    /// from the head, before a byte of the body).
    case tooLarge(String)
    /// The answer is not HTTP/1.x or breaks its framing.
    case malformedAnswer(String)
    /// Writing or reading failed, or the peer closed before the answer's end.
    case connectionBroken(String)
    /// The redirect follower would not go on: another origin, a loop, too many redirects, or
    /// a `Location` that is not a URL.
    case redirectRefused(String)

    public var description: String {
        switch self {
        case .invalidRequest(let text), .blockedAddress(let text), .noSuchName(let text), .lookupFailed(let text),
             .connect(let text), .tls(let text), .timeout(let text), .tooLarge(let text), .malformedAnswer(let text),
             .connectionBroken(let text), .redirectRefused(let text):
            text
        }
    }
}
