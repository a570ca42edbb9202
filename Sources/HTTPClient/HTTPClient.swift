import EventLoop
import TLS

/// Outgoing HTTP/1.1 requests on the loop, one connection each (`HTTPFetch`), for callers
/// that fetch from URLs they were given: Web Push's endpoints, OAuth's client metadata
/// documents. The client holds the policy all of its requests share: the TLS context (its
/// trust; it should offer no ALPN protocol but `http/1.1`), whether `http:` may be used (for
/// tests), and which addresses may be connected to.
public final class HTTPClient {
    let loop: EventLoop
    let tls: TLSClientContext
    let allowsPlainHTTP: Bool
    let admits: (IPAddress) -> Bool

    /// `admits` judges each address the host's name resolves to before any connection
    /// (`PublicAddresses.isPublic` keeps to the public internet); when it refuses every one,
    /// the request fails as `blockedAddress`.
    public init(loop: EventLoop, tls: TLSClientContext, allowsPlainHTTP: Bool = false,
                admits: @escaping (IPAddress) -> Bool) {
        self.loop = loop
        self.tls = tls
        self.allowsPlainHTTP = allowsPlainHTTP
        self.admits = admits
    }

    /// Sends `request` and reads its answer, whatever its status: a `3xx` comes back as it
    /// is, with `location` resolved, for the caller to decide. `completion` runs once, on the
    /// loop, on a later turn; the returned fetch may be cancelled.
    @discardableResult
    public func fetch(_ request: HTTPClientRequest, limits: HTTPClientLimits = HTTPClientLimits(),
                      completion: @escaping HTTPFetch.Completion) -> HTTPFetch {
        start(request, limits: limits, deadline: loop.clock.now + limits.timeout, completion: completion)
    }

    /// Sends `request` and follows up to `maxRedirects` redirects within its origin (same
    /// scheme, host and port); one to another origin, back to a URL already asked, or past the
    /// count fails as `redirectRefused`. `limits.timeout` bounds all the requests together.
    @discardableResult
    public func fetchFollowingRedirects(_ request: HTTPClientRequest, maxRedirects: Int,
                                        limits: HTTPClientLimits = HTTPClientLimits(),
                                        completion: @escaping HTTPFetch.Completion) -> SameOriginRedirects {
        let follower = SameOriginRedirects(client: self, request: request, maxRedirects: maxRedirects, limits: limits,
                                           deadline: loop.clock.now + limits.timeout, completion: completion)
        follower.start()
        return follower
    }

    func start(_ request: HTTPClientRequest, limits: HTTPClientLimits, deadline: Instant,
               completion: @escaping HTTPFetch.Completion) -> HTTPFetch {
        let fetch = HTTPFetch(client: self, request: request, limits: limits, deadline: deadline, completion: completion)
        fetch.start()
        return fetch
    }
}
