import Testing
import TestSupport
import HTTP

/// One request set and exactly what the parser must report for it.
struct SplitCase: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var expected: [Seen]
    var testDescription: String { name }
    var bytes: [UInt8] { Array(text.utf8) }
}

let splitCases: [SplitCase] = [
    SplitCase(
        name: "GET without body",
        text: "GET /v1/keys?limit=5 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n",
        expected: [
            .head(HeadSummary(.get, "/v1/keys?limit=5", fields: ["Host: example.com", "Accept: */*"])),
            .end(""),
        ]
    ),
    SplitCase(
        name: "POST with Content-Length",
        text: "POST /v1/tasks HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"title\":\"x\"}",
        expected: [
            .head(HeadSummary(.post, "/v1/tasks", fields: ["Host: a", "Content-Type: application/json", "Content-Length: 13"], contentLength: 13)),
            .end("{\"title\":\"x\"}"),
        ]
    ),
    SplitCase(
        name: "chunked with extensions and trailers",
        text: "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6 ; x=\"q\"\r\n world\r\nA\r\n0123456789\r\n0;last\r\nX-Checksum: abc\r\nX-Other:\t1 \r\n\r\n",
        expected: [
            .head(HeadSummary(.post, "/upload", fields: ["Host: a", "Transfer-Encoding: chunked"], isChunked: true)),
            .end("hello world0123456789"),
        ]
    ),
    SplitCase(
        name: "Expect: 100-continue",
        text: "PUT /v1/things/1 HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nabcd",
        expected: [
            .head(HeadSummary(.put, "/v1/things/1", fields: ["Host: a", "Expect: 100-continue", "Content-Length: 4"], contentLength: 4, expectsContinue: true)),
            .end("abcd"),
        ]
    ),
    SplitCase(
        name: "pipelined trio with a stray CRLF between requests",
        text: "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz\r\n"
            + "DELETE /c?x=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        expected: [
            .head(HeadSummary(.get, "/a", fields: ["Host: h"])),
            .end(""),
            .head(HeadSummary(.post, "/b", fields: ["Host: h", "Content-Length: 3"], contentLength: 3)),
            .end("xyz"),
            .head(HeadSummary(.delete, "/c?x=1", fields: ["Host: h", "Connection: close"], keepAlive: false)),
            .end(""),
        ]
    ),
    SplitCase(
        name: "HTTP/1.0 keep-alive",
        text: "GET /health HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\nGET /health HTTP/1.0\r\n\r\n",
        expected: [
            .head(HeadSummary(.get, "/health", version: .http10, fields: ["Connection: Keep-Alive"])),
            .end(""),
            .head(HeadSummary(.get, "/health", version: .http10, fields: [], keepAlive: false)),
            .end(""),
        ]
    ),
]

@Suite struct ParserSplitTests {
    @Test(arguments: splitCases)
    func parsesWholeRequestInOnePiece(_ c: SplitCase) {
        #expect(feed([c.bytes]) == c.expected)
    }

    @Test(arguments: splitCases)
    func parsesRequestFedByteByByte(_ c: SplitCase) {
        #expect(feed(c.bytes.map { [$0] }) == c.expected)
    }

    @Test(arguments: splitCases)
    func parsesRequestSplitAtEveryPoint(_ c: SplitCase) {
        let bytes = c.bytes
        for cut in 0...bytes.count {
            let seen = feed([Array(bytes[..<cut]), Array(bytes[cut...])])
            #expect(seen == c.expected, "split at \(cut)")
        }
    }

    @Test(arguments: splitCases)
    func parsesRequestInRandomPieces(_ c: SplitCase) {
        var random = SplitMix64(seed: 0x5EED_0000 &+ UInt64(c.bytes.count))
        let bytes = c.bytes
        for round in 0..<200 {
            var pieces: [[UInt8]] = []
            var i = 0
            while i < bytes.count {
                let n = Int.random(in: 1...(round % 2 == 0 ? 7 : 40), using: &random)
                pieces.append(Array(bytes[i..<min(i + n, bytes.count)]))
                i += n
            }
            #expect(feed(pieces) == c.expected, "round \(round): \(pieces.map(\.count))")
        }
    }

    @Test func bodilessRequestEndsEvenWithNoBytesAfterHead() {
        var parser = HTTPRequestParser()
        let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        let first = bytes.withUnsafeBytes { parser.parse($0) }
        #expect(first.consumed == bytes.count)
        guard case .head = first.event else { Issue.record("expected head"); return }
        #expect(parser.isReadingBody)
        #expect(!parser.isIdle)
        let second = [UInt8]().withUnsafeBytes { parser.parse($0) }
        guard case .end(let body) = second.event else { Issue.record("expected end"); return }
        #expect(body == [])
        #expect(second.consumed == 0)
        #expect(parser.isIdle)
        #expect(!parser.isReadingBody)
    }

    @Test func idleUntilTheFirstByteOfARequest() {
        var parser = HTTPRequestParser()
        #expect(parser.isIdle)
        _ = Array("\r\n".utf8).withUnsafeBytes { parser.parse($0) }
        #expect(parser.isIdle)
        let step = Array("G".utf8).withUnsafeBytes { parser.parse($0) }
        guard case .needMore = step.event else { Issue.record("expected needMore"); return }
        #expect(step.consumed == 1)
        #expect(!parser.isIdle)
        #expect(!parser.isReadingBody)
    }
}
