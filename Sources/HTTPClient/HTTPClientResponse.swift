/// An answer of any status, read whole within the request's limits.
public struct HTTPClientResponse: Sendable, Equatable {
    /// The URL that answered (after the follower's redirects, the last one).
    public let url: HTTPURL
    /// `HTTP/1.1` or `HTTP/1.0`.
    public let version: String
    public let status: Int
    public let reason: String
    public let headers: HTTPHeaders
    /// The body without its framing; empty for `HEAD`, `204`, `304` and a request that does
    /// not read it.
    public let body: [UInt8]

    public init(url: HTTPURL, version: String = "HTTP/1.1", status: Int, reason: String = "", headers: HTTPHeaders = [:],
                body: [UInt8] = []) {
        self.url = url
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    /// A redirect the follower may take: `301`, `302`, `303`, `307`, `308` (RFC 9110 15.4).
    public var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) }

    /// For a `3xx`, its `Location` read against `url` (RFC 9110 10.2.2), for the caller to
    /// decide whether to go there; nil for another status, without a `Location`, or when it
    /// is no `http:` or `https:` URL (`redirectTarget` says why).
    public var location: HTTPURL? {
        guard case .success(let target)? = redirectTarget else { return nil }
        return target
    }

    /// The `Location` of a `3xx` read against `url`, or why it is no URL this client goes
    /// to; nil for another status or without a `Location`.
    public var redirectTarget: Result<HTTPURL, HTTPURL.Refusal>? {
        guard (300..<400).contains(status), let value = headers["Location"] else { return nil }
        do {
            return .success(try url.resolving(value))
        } catch {
            return .failure(error)
        }
    }
}
