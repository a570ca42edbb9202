import Testing
import HTTP

@Suite struct ParserChunkedTests {
    static let head = "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
    static let summary = HeadSummary(.post, "/c", fields: ["Host: a", "Transfer-Encoding: chunked"], isChunked: true)

    static func chunked(_ body: String) -> [Seen] { feed(head + body) }

    @Test func decodesHexSizesInEitherCase() {
        let body = "a\r\n0123456789\r\nB\r\nabcdefghijk\r\n00\r\n\r\n"
        #expect(Self.chunked(body) == [.head(Self.summary), .end("0123456789abcdefghijk")])
    }

    @Test func refusesChunkDataWithoutCRLF() {
        #expect(parseError(Self.head + "5\r\nhelloX\r\n0\r\n\r\n") == .badRequest("chunk data not followed by CRLF"))
        #expect(parseError(Self.head + "5\r\nhello\rX0\r\n\r\n") == .badRequest("chunk data not followed by CRLF"))
        #expect(parseError(Self.head + "5\r\nhello\n0\r\n\r\n") == .badRequest("chunk data not followed by CRLF"))
    }

    @Test func answersChunkSizeOverflowWith413() {
        #expect(parseError(Self.head + "ffffffffffffffffff\r\n") == .payloadTooLarge)
        #expect(parseError(Self.head + "8000000000000000\r\n") == .payloadTooLarge)
    }

    @Test func refusesMalformedChunkSizes() {
        for line in ["g", "", " 5", "5 ", "-5", "0x5", "5\u{1}"] {
            #expect(parseError(Self.head + "\(line)\r\nhello\r\n0\r\n\r\n") == .badRequest("invalid chunk size"), "\(line.debugDescription)")
        }
        #expect(parseError(Self.head + "5\nhello\r\n0\r\n\r\n") == .badRequest("bare LF in a chunk size line"))
        #expect(parseError(Self.head + "5;a=\u{1}\r\nhello\r\n0\r\n\r\n") == .badRequest("control byte in a chunk extension"))
    }

    @Test func acceptsExtensionsWithWhitespaceBeforeTheSemicolon() {
        #expect(Self.chunked("5 \t;a=b;c\r\nhello\r\n0 ;x\r\n\r\n") == [.head(Self.summary), .end("hello")])
    }

    @Test func checksAndDropsTrailerFields() {
        #expect(Self.chunked("1\r\nx\r\n0\r\nX-Sum: 1\r\nX-Other: two\r\n\r\n") == [.head(Self.summary), .end("x")])
        #expect(parseError(Self.head + "0\r\nBad Name: 1\r\n\r\n") == .badRequest("whitespace before the colon of a field"))
        #expect(parseError(Self.head + "0\r\nX-A: 1\r\n folded\r\n\r\n") == .badRequest("obs-fold or whitespace at the start of a field line"))
        #expect(parseError(Self.head + "0\r\nX-A: \0\r\n\r\n") == .badRequest("control byte in a field value"))
        #expect(parseError(Self.head + "0\r\nX-A: 1\n\r\n") == .badRequest("bare LF in the trailer section"))
        #expect(parseError(Self.head + "0\r\n\n") == .badRequest("bare LF in the trailer section"))
    }

    @Test func leavesTheNextRequestAfterTheFinalCRLF() {
        let all = Array((Self.head + "3\r\nabc\r\n0\r\n\r\nGET").utf8)
        var parser = HTTPRequestParser()
        let head = all.withUnsafeBytes { parser.parse($0) }
        let end = all[head.consumed...].withUnsafeBytes { parser.parse($0) }
        guard case .end(let body) = end.event else { Issue.record("expected end"); return }
        #expect(body == Array("abc".utf8))
        #expect(head.consumed + end.consumed == all.count - 3)
        #expect(parser.isIdle)
    }
}
