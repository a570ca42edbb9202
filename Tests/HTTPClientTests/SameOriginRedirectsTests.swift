import EventLoop
import HTTPClient
import Testing

/// The follower against a TLS server of the test's own: hops within the origin, refusals of
/// another host, of a loop and of one hop too many, each before any connection it refuses.
@Suite struct SameOriginRedirectsTests {
    /// Answers each path of `routes` with its status and `Location` (`{port}` standing for the
    /// server's port), any other with a 200 whose body names the path.
    func harness(_ routes: [String: (status: String, location: String)]) throws -> FetchHarness {
        var port: UInt16 = 0
        let made = try FetchHarness { request in
            let path = String(request.split(separator: " ")[1])
            guard let route = routes[path] else { return [.send(answer("200 OK", body: "at \(path)"))] }
            return [.send(answer(route.status, ["Location: " + route.location.replacing("{port}", with: String(port))]))]
        }
        port = made.server.port
        return made
    }

    func follow(_ harness: FetchHarness, _ request: HTTPClientRequest, maxRedirects: Int = 5)
        -> Result<HTTPClientResponse, HTTPClientFailure>? {
        var result: Result<HTTPClientResponse, HTTPClientFailure>?
        harness.client.fetchFollowingRedirects(request, maxRedirects: maxRedirects, limits: HTTPClientLimits(timeout: .seconds(10))) {
            result = $0
        }
        harness.run { result != nil }
        return result
    }

    @Test func redirectsWithinTheOriginAreFollowedToTheAnswer() throws {
        let harness = try harness(["/a": ("302 Found", "/b/"), "/b/": ("308 Permanent Redirect", "c?d=1")])
        let response = try #require(follow(harness, HTTPClientRequest(url: try harness.url("/a")))?.response)
        #expect(response.status == 200)
        #expect(response.url == (try harness.url("/b/c?d=1")))
        #expect(String(decoding: response.body, as: UTF8.self) == "at /b/c?d=1")
        #expect(harness.server.requests.map { String($0.split(separator: "\r\n")[0]) }
            == ["GET /a HTTP/1.1", "GET /b/ HTTP/1.1", "GET /b/c?d=1 HTTP/1.1"])
    }

    @Test func aRedirectToAnotherHostIsRefusedWithoutGoingThere() throws {
        // The same server under another name (same scheme and port): another origin all the same.
        let harness = try harness(["/a": ("302 Found", "https://127.0.0.1:{port}/b")])
        let result = follow(harness, HTTPClientRequest(url: try harness.url("/a")))
        let port = harness.server.port
        #expect(result?.failure == .redirectRefused("https://localhost:\(port)/a redirected to another origin, https://127.0.0.1:\(port)"))
        #expect(harness.server.requests.count == 1)
    }

    @Test func aRedirectLoopIsRefusedAtTheFirstURLAskedAgain() throws {
        let harness = try harness(["/a": ("302 Found", "/b"), "/b": ("302 Found", "/a")])
        let result = follow(harness, HTTPClientRequest(url: try harness.url("/a")))
        let origin = "https://localhost:\(harness.server.port)"
        #expect(result?.failure == .redirectRefused("\(origin)/b redirected back to \(origin)/a, a loop"))
        #expect(harness.server.requests.count == 2)
    }

    @Test func oneRedirectMoreThanAllowedIsRefused() throws {
        let harness = try harness(["/a": ("301 Moved Permanently", "/b"), "/b": ("301 Moved Permanently", "/c")])
        let result = follow(harness, HTTPClientRequest(url: try harness.url("/a")), maxRedirects: 1)
        #expect(result?.failure == .redirectRefused("https://localhost:\(harness.server.port)/a led to more redirects than the 1 allowed"))
        #expect(harness.server.requests.count == 2)
    }

    @Test func aLocationThatIsNoHTTPURLIsRefused() throws {
        let harness = try harness(["/a": ("302 Found", "ftp://files.example/x")])
        let result = follow(harness, HTTPClientRequest(url: try harness.url("/a")))
        #expect(result?.failure == .redirectRefused("https://localhost:\(harness.server.port)/a redirected to a URL that is not http: or https:"))
    }

    @Test func a303AfterAPOSTGoesOnAsAGETWithoutTheBody() throws {
        let harness = try harness(["/form": ("303 See Other", "/done")])
        let request = HTTPClientRequest(method: "POST", url: try harness.url("/form"), body: Array("a=1".utf8))
        let response = try #require(follow(harness, request)?.response)
        #expect(String(decoding: response.body, as: UTF8.self) == "at /done")
        let requests = harness.server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.hasSuffix("Content-Length: 3\r\nConnection: close\r\n\r\na=1") == true)
        #expect(requests.last == "GET /done HTTP/1.1\r\nHost: localhost:\(harness.server.port)\r\nConnection: close\r\n\r\n")
    }
}
