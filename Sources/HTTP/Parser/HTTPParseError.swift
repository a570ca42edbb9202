/// Why a request was refused. Each case knows its status; the connection answers with it
/// and closes, because after a framing error the next request's start is unknown.
public enum HTTPParseError: Error, Sendable, Equatable {
    /// 400. The reason is for the log: it never echoes a header value.
    case badRequest(String)
    /// 414: the target is longer than `maxTargetBytes`, or the request line than
    /// `maxRequestLineBytes`.
    case uriTooLong
    /// 431: the head, the field count or the trailer section is over its limit.
    case headersTooLarge
    /// 413: the body is (or would be) longer than `maxBodyBytes`.
    case payloadTooLarge
    /// 501: e.g. a transfer coding other than `chunked`.
    case notImplemented(String)
    /// 505: a well-formed version other than HTTP/1.0 and HTTP/1.1.
    case versionNotSupported

    /// The response status for this error.
    public var status: Int {
        switch self {
        case .badRequest: 400
        case .uriTooLong: 414
        case .headersTooLarge: 431
        case .payloadTooLarge: 413
        case .notImplemented: 501
        case .versionNotSupported: 505
        }
    }

    /// A short text for the log line.
    public var reason: String {
        switch self {
        case .badRequest(let reason): reason
        case .uriTooLong: "request line too long"
        case .headersTooLarge: "header section too large"
        case .payloadTooLarge: "body too large"
        case .notImplemented(let reason): reason
        case .versionNotSupported: "HTTP version not supported"
        }
    }
}
