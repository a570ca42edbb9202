import Clock

/// Requests that follow redirects only within the first URL's origin, each hop a fetch of its
/// own under the one deadline of the first. A redirect elsewhere is not followed but refused,
/// so a caller that trusts an origin (an OAuth client's metadata URL) gets nothing from
/// another; a loop or too many hops end it too. `303` (but after a `HEAD`), and `301` or `302`
/// after a `POST`, go on as `GET` without the body (RFC 9110 15.4); `307` and `308` keep both.
public final class SameOriginRedirects {
    private let client: HTTPClient
    private let maxRedirects: Int
    private let limits: HTTPClientLimits
    private let deadline: Instant
    private let first: HTTPURL
    private var request: HTTPClientRequest
    private var visited: [HTTPURL]
    private var current: HTTPFetch?
    private var completion: HTTPFetch.Completion?

    init(client: HTTPClient, request: HTTPClientRequest, maxRedirects: Int, limits: HTTPClientLimits, deadline: Instant,
         completion: @escaping HTTPFetch.Completion) {
        self.client = client
        self.request = request
        self.maxRedirects = maxRedirects
        self.limits = limits
        self.deadline = deadline
        self.completion = completion
        first = request.url
        visited = [request.url]
    }

    /// Ends the current request; no result comes.
    public func cancel() {
        completion = nil
        current?.cancel()
        current = nil
    }

    func start() {
        // The fetch's completion holds the follower until the last hop ends.
        current = client.start(request, limits: limits, deadline: deadline) { [self] result in
            current = nil
            hopEnded(result)
        }
    }

    private func hopEnded(_ result: Result<HTTPClientResponse, HTTPClientFailure>) {
        guard case .success(let response) = result, response.isRedirect, let target = response.redirectTarget else {
            return finish(result)
        }
        let url: HTTPURL
        switch target {
        case .success(let resolved): url = resolved
        case .failure(let refusal):
            return finish(.failure(.redirectRefused("\(response.url) redirected to \(refusal.reason)")))
        }
        guard url.isSameOrigin(as: first) else {
            return finish(.failure(.redirectRefused("\(response.url) redirected to another origin, \(url.origin)")))
        }
        guard !visited.contains(url) else {
            return finish(.failure(.redirectRefused("\(response.url) redirected back to \(url), a loop")))
        }
        guard visited.count <= maxRedirects else {
            return finish(.failure(.redirectRefused("\(first) led to more redirects than the \(maxRedirects) allowed")))
        }
        visited.append(url)
        request.url = url
        if (response.status == 303 && request.method != "HEAD") || (request.method == "POST" && (response.status == 301 || response.status == 302)) {
            request.method = "GET"
            request.body = nil
        }
        start()
    }

    private func finish(_ result: Result<HTTPClientResponse, HTTPClientFailure>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}
