import Testing
@testable import HTTPClient

@Suite struct HTTPClientRequestTests {
    @Test func theRequestCarriesHostTheCallersFieldsTheLengthAndConnectionClose() throws {
        let request = HTTPClientRequest(method: "POST", url: try HTTPURL("https://push.example:8443/send?x=1"),
                                        headers: ["TTL": "60", "Authorization": "vapid t=a"], body: [1, 2, 3])
        #expect(String(decoding: try request.bytes().get(), as: UTF8.self)
            == "POST /send?x=1 HTTP/1.1\r\nHost: push.example:8443\r\nTTL: 60\r\nAuthorization: vapid t=a\r\n"
            + "Content-Length: 3\r\nConnection: close\r\n\r\n\u{1}\u{2}\u{3}")
        let get = HTTPClientRequest(url: try HTTPURL("https://[::1]/m.json"))
        #expect(String(decoding: try get.bytes().get(), as: UTF8.self) == "GET /m.json HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n")
    }

    @Test func whatWouldBreakTheHeadOrContradictTheConnectionIsNotSent() throws {
        let url = try HTTPURL("https://example.com/")
        #expect(HTTPClientRequest(method: "GET /x", url: url).bytes()
            == .failure(.invalidRequest(#"a method that is not a token: "GET /x""#)))
        #expect(HTTPClientRequest(url: url, headers: ["X": "a\r\nInjected: 1"]).bytes()
            == .failure(.invalidRequest(#"a header field that cannot be sent as it is: "X""#)))
        #expect(HTTPClientRequest(url: url, headers: ["Bad Name": "1"]).bytes()
            == .failure(.invalidRequest(#"a header field that cannot be sent as it is: "Bad Name""#)))
        #expect(HTTPClientRequest(url: url, headers: ["content-length": "5"]).bytes()
            == .failure(.invalidRequest("content-length is the client's to write")))
    }

    @Test func fieldsAreLookedUpWithoutRegardToCase() {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        headers.add("cache-control", "max-age=60, public")
        headers.add("CACHE-CONTROL", " immutable ,")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["Cache-Control"] == "max-age=60, public")
        #expect(headers.values("cache-Control") == ["max-age=60, public", " immutable ,"])
        #expect(headers.list("Cache-Control") == ["max-age=60", "public", "immutable"])
        #expect(headers["Location"] == nil && !headers.contains("location"))
    }
}
