import Testing
import HTTP

/// Each limit passes at exactly its value and refuses one over, with its status.
@Suite struct ParserLimitTests {
    static func limits(_ change: (inout HTTPParserLimits) -> Void) -> HTTPParserLimits {
        var limits = HTTPParserLimits()
        change(&limits)
        return limits
    }

    /// A GET whose request line (without CRLF) is exactly `length` bytes.
    static func requestLine(length: Int) -> String {
        let fixed = "GET / HTTP/1.1".utf8.count
        return "GET /" + String(repeating: "a", count: length - fixed) + " HTTP/1.1"
    }

    /// A GET whose target is exactly `length` bytes.
    static func requestLine(targetLength length: Int, method: String = "GET") -> String {
        "\(method) /" + String(repeating: "a", count: length - 1) + " HTTP/1.1"
    }

    /// A head of exactly `length` bytes, padding one field value.
    static func head(length: Int) -> String {
        let base = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: \r\n\r\n"
        return "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: " + String(repeating: "p", count: length - base.utf8.count) + "\r\n\r\n"
    }

    @Test func defaultsAreAsDocumented() {
        let l = HTTPParserLimits()
        #expect([l.maxTargetBytes, l.maxRequestLineBytes, l.maxHeadBytes, l.maxHeaderCount, l.maxBodyBytes, l.maxChunkLineBytes, l.maxTrailerBytes]
            == [8192, 8256, 16384, 100, 1_048_576, 1024, 8192])
    }

    /// The limit is on the target: 8 KiB of target passes whatever the method, one byte more
    /// is 414.
    @Test func acceptsATargetAtTheLimit() {
        for (name, method) in [("GET", HTTPMethod.get), ("DELETE", .delete), ("OPTIONS", .options)] {
            let line = Self.requestLine(targetLength: 8192, method: name)
            let target = "/" + String(repeating: "a", count: 8191)
            #expect(feed(line + "\r\nHost: a\r\n\r\n") == [.head(HeadSummary(method, target, fields: ["Host: a"])), .end("")])
        }
    }

    @Test func refusesATargetOverTheLimitWith414() {
        #expect(parseError(Self.requestLine(targetLength: 8193) + "\r\nHost: a\r\n\r\n") == .uriTooLong)
        #expect(feed(Self.requestLine(targetLength: 8193) + "\r\nHost: a\r\n\r\n") == [.error(.uriTooLong)])
    }

    @Test func refusesLongRequestLineBeforeItsCRLF() {
        #expect(feed(Self.requestLine(length: 8257)) == [.error(.uriTooLong)])
        #expect(feed("GET /" + String(repeating: "a", count: 9000)) == [.error(.uriTooLong)])
        // At the limit, and with the CR that may start its CRLF, it is still waiting.
        #expect(feed(Self.requestLine(length: 8256)) == [])
        #expect(feed(Self.requestLine(length: 8256) + "\r") == [])
        #expect(feed([Array((Self.requestLine(length: 8256) + "\r").utf8), Array("X".utf8)]) == [.error(.uriTooLong)])
    }

    @Test func acceptsHeadAtTheLimit() {
        let limits = Self.limits { $0.maxHeadBytes = 200 }
        let text = Self.head(length: 200)
        #expect(text.utf8.count == 200)
        #expect(feed(text, limits: limits).count == 2)
        #expect(feedByteByByte(text, limits: limits).count == 2)
    }

    @Test func refusesHeadOverTheLimitWith431() {
        let limits = Self.limits { $0.maxHeadBytes = 200 }
        #expect(parseError(Self.head(length: 201), limits: limits) == .headersTooLarge)
        #expect(parseError(Self.head(length: 201), limits: HTTPParserLimits()) == nil)
    }

    @Test func refusesLargeHeadBeforeItsEnd() {
        let text = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: " + String(repeating: "p", count: 16_400)
        #expect(feed(text) == [.error(.headersTooLarge)])
        #expect(feed(String(text.prefix(16_000))) == [])
    }

    @Test func leadingEmptyLinesDoNotCountTowardsTheHead() {
        let limits = Self.limits { $0.maxHeadBytes = 200 }
        #expect(feed("\r\n\r\n" + Self.head(length: 200), limits: limits).count == 2)
    }

    @Test func acceptsFieldCountAtTheLimit() {
        let fields = (1...99).map { "X-\($0): v\r\n" }.joined()
        let seen = feed("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n")
        guard case .head(let h) = seen.first else { Issue.record("expected head"); return }
        #expect(h.fields.count == 100)
    }

    @Test func refusesFieldCountOverTheLimitWith431() {
        let fields = (1...100).map { "X-\($0): v\r\n" }.joined()
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n") == .headersTooLarge)
        // Found on the 101st line, before the head ends.
        #expect(feed("GET / HTTP/1.1\r\nHost: a\r\n\(fields)") == [.error(.headersTooLarge)])
    }

    @Test func acceptsContentLengthAtTheBodyLimit() {
        let limits = Self.limits { $0.maxBodyBytes = 10 }
        let text = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789"
        #expect(feed(text, limits: limits).last == .end("0123456789"))
    }

    @Test func refusesContentLengthOverTheBodyLimitBeforeReadingTheBody() {
        let limits = Self.limits { $0.maxBodyBytes = 10 }
        let head = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n"
        let bytes = Array((head + "01234567890").utf8)
        var parser = HTTPRequestParser(limits: limits)
        let step = bytes.withUnsafeBytes { parser.parse($0) }
        guard case .error(let error) = step.event else { Issue.record("expected error"); return }
        #expect(error == .payloadTooLarge)
        #expect(error.status == 413)
        #expect(step.consumed == head.utf8.count)
        #expect(feed(head, limits: limits) == [.error(.payloadTooLarge)])
    }

    @Test func refusesDefaultBodyLimitPlusOne() {
        #expect(parseError("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n") == .payloadTooLarge)
        let seen = feed("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n")
        #expect(seen == [.head(HeadSummary(.post, "/", fields: ["Host: a", "Content-Length: 1048576"], contentLength: 1_048_576))])
    }

    @Test func acceptsChunkedBodyAtTheLimit() {
        let limits = Self.limits { $0.maxBodyBytes = 10 }
        let text = ParserChunkedTests.head + "4\r\n0123\r\n6\r\n456789\r\n0\r\n\r\n"
        #expect(feed(text, limits: limits).last == .end("0123456789"))
    }

    @Test func refusesChunkedBodyOverTheLimitAtTheSizeLine() {
        let limits = Self.limits { $0.maxBodyBytes = 10 }
        #expect(parseError(ParserChunkedTests.head + "4\r\n0123\r\n7\r\n", limits: limits) == .payloadTooLarge)
        #expect(parseError(ParserChunkedTests.head + "b\r\n", limits: limits) == .payloadTooLarge)
    }

    @Test func acceptsChunkLineAtTheLimit() {
        let limits = Self.limits { $0.maxChunkLineBytes = 16 }
        let line = "5;" + String(repeating: "e", count: 14)
        #expect(feed(ParserChunkedTests.head + line + "\r\nhello\r\n0\r\n\r\n", limits: limits).last == .end("hello"))
        #expect(feedByteByByte(ParserChunkedTests.head + line + "\r\nhello\r\n0\r\n\r\n", limits: limits).last == .end("hello"))
    }

    @Test func refusesChunkLineOverTheLimit() {
        let limits = Self.limits { $0.maxChunkLineBytes = 16 }
        let line = "5;" + String(repeating: "e", count: 15)
        #expect(parseError(ParserChunkedTests.head + line + "\r\nhello\r\n0\r\n\r\n", limits: limits) == .badRequest("chunk size line too long"))
        // Found before the line's CRLF arrives.
        #expect(feed(ParserChunkedTests.head + line, limits: limits).last == .error(.badRequest("chunk size line too long")))
    }

    @Test func acceptsTrailersAtTheLimit() {
        let limits = Self.limits { $0.maxTrailerBytes = 20 }
        let padded = "X-T: " + String(repeating: "v", count: 20 - 2 - 7) + "\r\n\r\n"
        #expect(padded.utf8.count == 20)
        #expect(feed(ParserChunkedTests.head + "0\r\n" + padded, limits: limits).last == .end(""))
    }

    @Test func refusesTrailersOverTheLimitWith431() {
        let limits = Self.limits { $0.maxTrailerBytes = 20 }
        let padded = "X-T: " + String(repeating: "v", count: 20 - 2 - 7 + 1) + "\r\n\r\n"
        #expect(parseError(ParserChunkedTests.head + "0\r\n" + padded, limits: limits) == .headersTooLarge)
        // Found before the trailer line ends.
        #expect(feed(ParserChunkedTests.head + "0\r\nX-T: " + String(repeating: "v", count: 30), limits: limits).last == .error(.headersTooLarge))
    }
}
