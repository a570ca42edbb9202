import Testing
import HTTP

/// The connection-handling answers a head gives: keep-alive and 100-continue.
@Suite struct ParserHeadTests {
    struct KeepAliveCase: Sendable, CustomTestStringConvertible {
        var version: String
        var connection: [String]
        var keepAlive: Bool
        var testDescription: String { "\(version) \(connection) -> \(keepAlive)" }
    }

    static let keepAliveTable: [KeepAliveCase] = [
        KeepAliveCase(version: "HTTP/1.1", connection: [], keepAlive: true),
        KeepAliveCase(version: "HTTP/1.1", connection: ["close"], keepAlive: false),
        KeepAliveCase(version: "HTTP/1.1", connection: ["Close"], keepAlive: false),
        KeepAliveCase(version: "HTTP/1.1", connection: ["keep-alive"], keepAlive: true),
        KeepAliveCase(version: "HTTP/1.1", connection: ["Upgrade, CLOSE"], keepAlive: false),
        KeepAliveCase(version: "HTTP/1.1", connection: ["keep-alive", "close"], keepAlive: false),
        KeepAliveCase(version: "HTTP/1.1", connection: ["closed"], keepAlive: true),
        KeepAliveCase(version: "HTTP/1.0", connection: [], keepAlive: false),
        KeepAliveCase(version: "HTTP/1.0", connection: ["keep-alive"], keepAlive: true),
        KeepAliveCase(version: "HTTP/1.0", connection: ["Keep-Alive"], keepAlive: true),
        KeepAliveCase(version: "HTTP/1.0", connection: ["te, keep-alive"], keepAlive: true),
        KeepAliveCase(version: "HTTP/1.0", connection: ["keep-alive, close"], keepAlive: false),
        KeepAliveCase(version: "HTTP/1.0", connection: ["close"], keepAlive: false),
    ]

    @Test(arguments: keepAliveTable)
    func decidesKeepAlive(_ c: KeepAliveCase) throws {
        let fields = c.connection.map { "Connection: \($0)\r\n" }.joined()
        let h = try #require(head("GET / \(c.version)\r\nHost: a\r\n\(fields)\r\n"))
        #expect(h.keepAlive == c.keepAlive)
    }

    struct ContinueCase: Sendable, CustomTestStringConvertible {
        var fields: String
        var version = "HTTP/1.1"
        var expectsContinue: Bool
        var testDescription: String { "\(version) \(fields.debugDescription) -> \(expectsContinue)" }
    }

    static let continueTable: [ContinueCase] = [
        ContinueCase(fields: "Expect: 100-continue\r\nContent-Length: 5\r\n", expectsContinue: true),
        ContinueCase(fields: "Expect: 100-Continue\r\nContent-Length: 5\r\n", expectsContinue: true),
        ContinueCase(fields: "expect:  100-CONTINUE \r\nContent-Length: 5\r\n", expectsContinue: true),
        ContinueCase(fields: "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n", expectsContinue: true),
        ContinueCase(fields: "Content-Length: 5\r\n", expectsContinue: false),
        ContinueCase(fields: "Expect: 100-continue\r\n", expectsContinue: false),
        ContinueCase(fields: "Expect: 100-continue\r\nContent-Length: 0\r\n", expectsContinue: false),
        ContinueCase(fields: "Expect: 200-ok\r\nContent-Length: 5\r\n", expectsContinue: false),
        ContinueCase(fields: "Expect: 100-continued\r\nContent-Length: 5\r\n", expectsContinue: false),
        ContinueCase(fields: "Expect: 100-continue\r\nContent-Length: 5\r\n", version: "HTTP/1.0", expectsContinue: false),
    ]

    @Test(arguments: continueTable)
    func decidesExpectsContinue(_ c: ContinueCase) {
        let seen = feed("PUT / \(c.version)\r\nHost: a\r\n\(c.fields)\r\n")
        guard case .head(let h) = seen.first else { Issue.record("expected head, saw \(seen)"); return }
        #expect(h.expectsContinue == c.expectsContinue)
    }

    @Test func parsesHeadFromBytesWithItsOwnCopy() throws {
        var bytes = Array("POST /x?y=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\n".utf8)
        let h = try HTTPRequestHead(parsing: bytes)
        bytes[0] = 0
        #expect(h.method == .post)
        #expect(h.version == .http11)
        #expect(h.target == "/x?y=1")
        #expect(h.contentLength == 3)
        #expect(!h.isChunked)
        #expect(h.header("host") == "h")
    }

    @Test func headInitAppliesLimits() {
        var limits = HTTPParserLimits()
        limits.maxHeaderCount = 1
        #expect(throws: HTTPParseError.headersTooLarge) {
            try HTTPRequestHead(parsing: Array("GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n\r\n".utf8), limits: limits)
        }
        limits = HTTPParserLimits()
        limits.maxRequestLineBytes = 10
        #expect(throws: HTTPParseError.uriTooLong) {
            try HTTPRequestHead(parsing: Array("GET /abcd HTTP/1.1\r\nHost: h\r\n\r\n".utf8), limits: limits)
        }
    }
}
