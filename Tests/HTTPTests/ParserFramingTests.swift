import Testing
import HTTP

/// Content-Length and Transfer-Encoding: the rules that decide where a request ends.
@Suite struct ParserFramingTests {
    static func post(_ fields: String, body: String = "") -> String {
        "POST /p HTTP/1.1\r\nHost: a\r\n\(fields)\r\n\(body)"
    }

    @Test func refusesContentLengthWithTransferEncoding() {
        let text = Self.post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", body: "0\r\n\r\n")
        #expect(parseError(text) == .badRequest("both Transfer-Encoding and Content-Length"))
        let reversed = Self.post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", body: "0\r\n\r\n")
        #expect(parseError(reversed) == .badRequest("both Transfer-Encoding and Content-Length"))
    }

    @Test func refusesDifferentContentLengths() {
        #expect(parseError(Self.post("Content-Length: 5\r\nContent-Length: 6\r\n", body: "hello")) == .badRequest("conflicting Content-Length values"))
        #expect(parseError(Self.post("Content-Length: 5, 6\r\n", body: "hello")) == .badRequest("conflicting Content-Length values"))
    }

    @Test func acceptsRepeatedEqualContentLengths() {
        let expected: [Seen] = [
            .head(HeadSummary(.post, "/p", fields: ["Host: a", "Content-Length: 5", "content-length: 005"], contentLength: 5)),
            .end("hello"),
        ]
        #expect(feed(Self.post("Content-Length: 5\r\ncontent-length: 005\r\n", body: "hello")) == expected)
        #expect(feed(Self.post("Content-Length: 5 ,5\r\n", body: "hello")) == [
            .head(HeadSummary(.post, "/p", fields: ["Host: a", "Content-Length: 5 ,5"], contentLength: 5)),
            .end("hello"),
        ])
    }

    @Test func refusesContentLengthThatIsNotDigits() {
        for value in ["+5", "-5", "0x5", "5 5", "5.0", "five", "", "5,", " , "] {
            let error = parseError(Self.post("Content-Length: \(value)\r\n", body: "hello"))
            #expect(error == .badRequest(value.contains(",") || value.isEmpty ? "empty Content-Length" : "invalid Content-Length"), "\(value)")
        }
    }

    @Test func answersContentLengthPastIntWith413() {
        #expect(parseError(Self.post("Content-Length: 99999999999999999999999\r\n")) == .payloadTooLarge)
        #expect(parseError(Self.post("Content-Length: 9223372036854775808\r\n")) == .payloadTooLarge)
    }

    @Test func treatsZeroContentLengthAsNoBody() {
        #expect(feed(Self.post("Content-Length: 0\r\n")) == [
            .head(HeadSummary(.post, "/p", fields: ["Host: a", "Content-Length: 0"], contentLength: 0)), .end(""),
        ])
    }

    @Test func refusesTransferCodingsOtherThanChunked() {
        #expect(parseError(Self.post("Transfer-Encoding: gzip\r\n")) == .notImplemented("transfer coding other than chunked"))
        #expect(parseError(Self.post("Transfer-Encoding: gzip, chunked\r\n")) == .notImplemented("transfer coding other than chunked"))
        #expect(parseError(Self.post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n")) == .notImplemented("transfer coding other than chunked"))
        #expect(parseError(Self.post("Transfer-Encoding: chunked;q=1\r\n"))?.status == 501)
    }

    @Test func refusesEmptyTransferEncoding() {
        #expect(parseError(Self.post("Transfer-Encoding: \r\n")) == .badRequest("empty Transfer-Encoding"))
    }

    @Test func acceptsChunkedInAnyCase() {
        #expect(feed(Self.post("Transfer-Encoding: CHUNKED\r\n", body: "0\r\n\r\n")) == [
            .head(HeadSummary(.post, "/p", fields: ["Host: a", "Transfer-Encoding: CHUNKED"], isChunked: true)), .end(""),
        ])
    }

    @Test func refusesTransferEncodingInHTTP10() {
        let text = "POST /p HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        #expect(parseError(text) == .badRequest("Transfer-Encoding in an HTTP/1.0 request"))
    }

    @Test func errorStatusesAndReasons() {
        #expect(HTTPParseError.badRequest("x").status == 400)
        #expect(HTTPParseError.badRequest("x").reason == "x")
        #expect(HTTPParseError.uriTooLong.status == 414)
        #expect(HTTPParseError.headersTooLarge.status == 431)
        #expect(HTTPParseError.payloadTooLarge.status == 413)
        #expect(HTTPParseError.notImplemented("y").status == 501)
        #expect(HTTPParseError.notImplemented("y").reason == "y")
        #expect(HTTPParseError.versionNotSupported.status == 505)
    }
}
