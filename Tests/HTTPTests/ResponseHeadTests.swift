import Testing
import HTTP

@Suite struct ResponseHeadTests {
    static let date = HTTPDate(unixSeconds: 784_111_777)

    static func written(_ head: HTTPResponseHead, contentLength: Int?, keepAlive: Bool, version: HTTPVersion) -> String {
        var buffer: [UInt8] = []
        head.write(into: &buffer, contentLength: contentLength, keepAlive: keepAlive, requestVersion: version, date: date)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test func writesKeepAliveHTTP11Response() {
        let head = HTTPResponseHead(status: 200, headers: [(name: "Content-Type", value: "application/json")])
        #expect(Self.written(head, contentLength: 2, keepAlive: true, version: .http11)
            == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test func writesConnectionCloseWhenNotKeepingAlive() {
        let head = HTTPResponseHead(status: 404)
        #expect(Self.written(head, contentLength: 0, keepAlive: false, version: .http11)
            == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: close\r\n\r\n")
        #expect(Self.written(head, contentLength: 0, keepAlive: false, version: .http10)
            == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: close\r\n\r\n")
    }

    @Test func writesKeepAliveForHTTP10Clients() {
        let head = HTTPResponseHead(status: 204)
        #expect(Self.written(head, contentLength: nil, keepAlive: true, version: .http10)
            == "HTTP/1.1 204 No Content\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: keep-alive\r\n\r\n")
    }

    @Test func writesSSEHeadWithoutContentLength() {
        let head = HTTPResponseHead(status: 200, headers: [
            (name: "Content-Type", value: "text/event-stream"),
            (name: "Cache-Control", value: "no-cache"),
        ])
        #expect(Self.written(head, contentLength: nil, keepAlive: true, version: .http11)
            == "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test func appendsToWhatIsAlreadyInTheBuffer() {
        var buffer = Array("previous".utf8)
        HTTPResponseHead(status: 201).write(into: &buffer, contentLength: 12_345_678_901, keepAlive: true, requestVersion: .http11, date: Self.date)
        #expect(String(decoding: buffer, as: UTF8.self)
            == "previousHTTP/1.1 201 Created\r\nContent-Length: 12345678901\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test func dropsFieldsThatWouldSplitTheResponse() {
        let head = HTTPResponseHead(status: 200, headers: [
            (name: "X-Ok", value: "1"),
            (name: "X-Evil", value: "a\r\nSet-Cookie: x=1"),
            (name: "X-Lf", value: "a\nb"),
            (name: "X-Cr", value: "a\rb"),
            (name: "X-Nul", value: "a\0b"),
            (name: "Bad Name", value: "v"),
            (name: "X-Inject\r\nA", value: "v"),
            (name: "", value: "v"),
            (name: "X-Tab", value: "a\tb"),
        ])
        #expect(Self.written(head, contentLength: 0, keepAlive: true, version: .http11)
            == "HTTP/1.1 200 OK\r\nX-Ok: 1\r\nX-Tab: a\tb\r\nContent-Length: 0\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test func writesOutOfRangeStatusAs500() {
        #expect(Self.written(HTTPResponseHead(status: 42), contentLength: 0, keepAlive: false, version: .http11)
            == "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: close\r\n\r\n")
    }

    @Test func writesUnknownStatusWithEmptyReason() {
        #expect(Self.written(HTTPResponseHead(status: 299), contentLength: nil, keepAlive: true, version: .http11)
            == "HTTP/1.1 299 \r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test func omitsNegativeContentLength() {
        #expect(Self.written(HTTPResponseHead(status: 200), contentLength: -1, keepAlive: true, version: .http11)
            == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test func continueBytesAreTheInterimResponse() {
        #expect(HTTPResponseHead.continueBytes == Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    @Test(arguments: [
        (100, "Continue"), (101, "Switching Protocols"), (200, "OK"), (201, "Created"), (204, "No Content"),
        (304, "Not Modified"), (400, "Bad Request"), (401, "Unauthorized"), (403, "Forbidden"), (404, "Not Found"),
        (405, "Method Not Allowed"), (408, "Request Timeout"), (409, "Conflict"), (411, "Length Required"),
        (413, "Content Too Large"), (414, "URI Too Long"), (415, "Unsupported Media Type"), (417, "Expectation Failed"),
        (422, "Unprocessable Content"), (429, "Too Many Requests"), (431, "Request Header Fields Too Large"),
        (500, "Internal Server Error"), (501, "Not Implemented"), (503, "Service Unavailable"),
        (505, "HTTP Version Not Supported"), (299, ""), (-1, ""),
    ])
    func reasonPhrases(status: Int, phrase: String) {
        #expect(HTTPStatus.reasonPhrase(status) == phrase)
    }

    @Test func everyParseErrorStatusHasAReasonPhrase() {
        let errors: [HTTPParseError] = [.badRequest(""), .uriTooLong, .headersTooLarge, .payloadTooLarge, .notImplemented(""), .versionNotSupported]
        for error in errors {
            #expect(!HTTPStatus.reasonPhrase(error.status).isEmpty)
        }
    }
}
