import Testing
import HTTP

@Suite struct ParserRequestLineTests {
    @Test func refusesHTTP2WithVersionNotSupported() {
        #expect(parseError("GET / HTTP/2.0\r\nHost: a\r\n\r\n") == .versionNotSupported)
        #expect(parseError("GET / HTTP/2.0\r\nHost: a\r\n\r\n")?.status == 505)
    }

    @Test func refusesOtherWellFormedVersionsWith505() {
        #expect(parseError("GET / HTTP/1.2\r\nHost: a\r\n\r\n") == .versionNotSupported)
        #expect(parseError("GET / HTTP/0.9\r\nHost: a\r\n\r\n") == .versionNotSupported)
        #expect(parseError("GET / HTTP/3\r\nHost: a\r\n\r\n") == .versionNotSupported)
    }

    @Test func answersTheHTTP2PrefaceWith505() {
        #expect(parseError("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == .versionNotSupported)
    }

    @Test func refusesLowercaseVersionName() {
        #expect(parseError("GET / http/1.1\r\nHost: a\r\n\r\n") == .badRequest("malformed HTTP version"))
    }

    @Test func refusesMalformedVersions() {
        for version in ["HTTP/1.1 ", "HTTP/11", "HTTP/1.x", "HTTP/a.1", "HTTP/1.10", "HTTPS/1.1", "HTTP/"] {
            #expect(parseError("GET / \(version)\r\nHost: a\r\n\r\n") == .badRequest("malformed HTTP version"), "\(version)")
        }
    }

    @Test func refusesMoreThanOneSpaceBetweenParts() {
        #expect(parseError("GET  / HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("empty request target"))
        #expect(parseError("GET /  HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("malformed HTTP version"))
        #expect(parseError("GET / a HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("malformed HTTP version"))
    }

    @Test func refusesLineWithoutVersion() {
        #expect(parseError("GET /\r\nHost: a\r\n\r\n") == .badRequest("malformed request line"))
        #expect(parseError("GET\r\nHost: a\r\n\r\n") == .badRequest("malformed request line"))
    }

    @Test func refusesMethodWithNonTokenByte() {
        #expect(parseError("GE(T / HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("malformed request line"))
        #expect(parseError(" GET / HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("empty method"))
    }

    @Test func refusesTargetBytesOutsideVisibleASCII() {
        #expect(parseError("GET /a\u{7F} HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("invalid byte in the request target"))
        #expect(parseError("GET /caf\u{E9} HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("invalid byte in the request target"))
        #expect(parseError("GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("invalid byte in the request target"))
    }

    /// RFC 9112 3.2.2: a server must accept absolute-form; the rest of the server sees the
    /// origin-form part.
    @Test func acceptsAbsoluteFormAsItsPath() throws {
        #expect(feed("GET http://a/b?c=1 HTTP/1.1\r\nHost: a\r\n\r\n") == [.head(HeadSummary(.get, "/b?c=1", fields: ["Host: a"])), .end("")])
        #expect(feed("GET HTTPS://a:8080/ HTTP/1.1\r\nHost: a\r\n\r\n") == [.head(HeadSummary(.get, "/", fields: ["Host: a"])), .end("")])
        let head = try HTTPRequestHead(parsing: Array("GET http://a/v1/keys?x HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(head.path == "/v1/keys")
        #expect(Array(head.pathBytes) == Array("/v1/keys".utf8))
        #expect(head.query == "x")
    }

    @Test func refusesAuthorityFormAndOtherSchemes() {
        #expect(parseError("CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("request target is not in origin-form"))
        #expect(parseError("GET ftp://a/b HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("request target is not in origin-form"))
        #expect(parseError("GET http:///b HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("request target is not in origin-form"))
    }

    @Test func acceptsAsteriskOnlyWithOptions() {
        #expect(feed("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") == [.head(HeadSummary(.options, "*", fields: ["Host: a"])), .end("")])
        #expect(parseError("GET * HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("asterisk target without OPTIONS"))
        #expect(parseError("OPTIONS *x HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("request target is not in origin-form"))
    }

    @Test func keepsUnknownAndLowercaseMethodsAsSent() {
        #expect(head("PROPFIND /a HTTP/1.1\r\nHost: a\r\n\r\n")?.method == .other("PROPFIND"))
        #expect(head("get /a HTTP/1.1\r\nHost: a\r\n\r\n")?.method == .other("get"))
        #expect(head("PATCH /a HTTP/1.1\r\nHost: a\r\n\r\n")?.method == .patch)
        #expect(head("HEAD /a HTTP/1.1\r\nHost: a\r\n\r\n")?.method == .head)
        #expect(HTTPMethod.other("PROPFIND").name == "PROPFIND")
        #expect(HTTPMethod.delete.name == "DELETE")
    }

    @Test func ignoresAFewEmptyLinesBeforeTheRequestLine() {
        #expect(feed("\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n") == [.head(HeadSummary(.get, "/", fields: ["Host: a"])), .end("")])
        #expect(feedByteByByte("\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n") == [.head(HeadSummary(.get, "/", fields: ["Host: a"])), .end("")])
    }

    @Test func refusesManyEmptyLinesBeforeTheRequestLine() {
        #expect(parseError("\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("too many empty lines before the request line"))
    }

    @Test func refusesBareLineEndsBeforeTheRequestLine() {
        #expect(parseError("\nGET / HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("bare LF in the head"))
        #expect(parseError("\rGET / HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("bare CR in the head"))
    }

    @Test func splitsPathAndQuery() throws {
        let h = try #require(head("GET /v1/keys?limit=5&x=?y HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(h.target == "/v1/keys?limit=5&x=?y")
        #expect(h.path == "/v1/keys")
        #expect(h.query == "limit=5&x=?y")
        #expect(Array(h.pathBytes) == Array("/v1/keys".utf8))
    }

    @Test func distinguishesNoQueryFromEmptyQuery() throws {
        let plain = try #require(head("GET /a%20b HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(plain.path == "/a%20b")
        #expect(plain.query == nil)
        #expect(Array(plain.pathBytes) == Array("/a%20b".utf8))
        let empty = try #require(head("GET /a? HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(empty.path == "/a")
        #expect(empty.query == "")
    }
}
