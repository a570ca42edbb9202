#if canImport(Glibc)
import Glibc
import HTTPTestSupport
#endif
import EventLoop
import Testing
@testable import HTTP

/// A body made in pieces while the client reads (`HTTPBodyProducer`): chunked on HTTP/1.1,
/// up to the close on HTTP/1.0, in order with the answers pipelined after it, and never made
/// much ahead of what the client has read.
@Suite struct ProducedBodyTests {
    /// `count` pieces of `size` bytes; piece `i` is the byte `i % 251` repeated, so a lost,
    /// repeated or reordered piece shows.
    final class Pieces: HTTPBodyProducer {
        let count: Int
        let size: Int
        private(set) var made = 0
        init(count: Int, size: Int) {
            self.count = count
            self.size = size
        }

        func nextPiece() -> [UInt8]? {
            guard made < count else { return nil }
            defer { made += 1 }
            return [UInt8](repeating: UInt8(made % 251), count: size)
        }

        var whole: [UInt8] { (0..<count).flatMap { [UInt8](repeating: UInt8($0 % 251), count: size) } }
    }

    /// The head's fields and the body of a chunked answer at the start of `bytes`, and the
    /// bytes after it; nil until all of it has arrived.
    static func chunked(_ bytes: [UInt8]) -> (head: String, body: [UInt8], rest: [UInt8])? {
        let crlf: [UInt8] = [13, 10]
        func line(from start: Int) -> (String, Int)? {
            guard start + 1 < bytes.count,
                  let end = (start..<(bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else { return nil }
            return (String(decoding: bytes[start..<end], as: UTF8.self), end + crlf.count)
        }
        guard let headEnd = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == crlf + crlf }) else { return nil }
        let head = String(decoding: bytes[0..<headEnd], as: UTF8.self)
        var at = headEnd + 4
        var body: [UInt8] = []
        while true {
            guard let (sizeLine, next) = line(from: at), let size = Int(sizeLine, radix: 16) else { return nil }
            at = next
            if size == 0 {
                guard bytes.count >= at + 2 else { return nil }
                return (head, body, Array(bytes[(at + 2)...]))
            }
            guard bytes.count >= at + size + 2 else { return nil }
            body += bytes[at..<(at + size)]
            at += size + 2
        }
    }

    @Test func aProducedBodyGoesOutChunkedAndThePipelinedAnswerAfterItWaitsItsTurn() throws {
        let harness = try ServerHarness()
        let pieces = Pieces(count: 40, size: 16 * 1024)
        harness.handler.onRequest = { request, responder in
            if request.head.path == "/big" {
                responder.respond(.produced(200, headers: [("Content-Type", "application/json")], pieces))
            } else {
                responder.respond(.json(200, Array("{\"small\":true}".utf8)))
            }
        }
        let client = harness.connect()
        client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n")
        var answer: (head: String, body: [UInt8], rest: [UInt8])?
        harness.pump { client.poll(); answer = Self.chunked(client.received); return answer.flatMap { TestClient.parse($0.rest) } != nil }
        let big = try #require(answer)
        #expect(big.head.hasPrefix("HTTP/1.1 200"))
        #expect(big.head.contains("Transfer-Encoding: chunked"))
        #expect(!big.head.lowercased().contains("content-length"))
        #expect(big.body == pieces.whole)
        let small = try #require(TestClient.parse(big.rest))
        #expect(small.0.bodyText == "{\"small\":true}")
        #expect(harness.handler.seen.map(\.head.path) == ["/big", "/small"])
    }

    @Test func aClientThatDoesNotReadGetsOnlyAFewPiecesMadeAhead() throws {
        let harness = try ServerHarness()
        // 32 MB if it were made at once.
        let pieces = Pieces(count: 1000, size: 32 * 1024)
        harness.handler.onRequest = { _, responder in
            responder.respond(.produced(200, headers: [], pieces))
        }
        let client = TestClient(port: harness.port, receiveBuffer: 4096)
        harness.pump(rounds: 3)
        client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump(rounds: 200)
        let connection = try #require(harness.server.connections.first)
        // What the kernel's socket buffers took, plus at most one piece queued past the mark.
        #expect(pieces.made < 200)
        #expect(connection.queuedOutputBytes <= HTTPConnection.producerLowWater + 32 * 1024 + 64)
        let made = pieces.made
        harness.pump(rounds: 100)
        #expect(pieces.made == made)
        // Once the client reads, all of it arrives.
        var answer: (head: String, body: [UInt8], rest: [UInt8])?
        harness.pump(rounds: 200_000) { client.poll(); answer = Self.chunked(client.received); return answer != nil }
        #expect(answer?.body.count == 1000 * 32 * 1024)
        #expect(answer?.body == pieces.whole)
    }

    @Test func anHTTP10ClientGetsTheBodyUpToTheClose() throws {
        let harness = try ServerHarness()
        let pieces = Pieces(count: 5, size: 20_000)
        harness.handler.onRequest = { _, responder in responder.respond(.produced(200, headers: [], pieces)) }
        let client = harness.connect()
        client.send("GET /big HTTP/1.0\r\n\r\n")
        harness.pump { client.poll(); return client.isClosed }
        let text = client.received
        let headEnd = try #require((0..<(text.count - 3)).first { Array(text[$0..<$0 + 4]) == [13, 10, 13, 10] })
        let head = String(decoding: text[0..<headEnd], as: UTF8.self)
        #expect(head.contains("Connection: close"))
        #expect(!head.contains("Transfer-Encoding"))
        #expect(Array(text[(headEnd + 4)...]) == pieces.whole)
    }

    @Test func aHeadRequestGetsTheHeadAndNoPieceIsMade() throws {
        let harness = try ServerHarness()
        let pieces = Pieces(count: 5, size: 20_000)
        harness.handler.onRequest = { request, responder in
            if request.head.path == "/big" {
                responder.respond(.produced(200, headers: [], pieces))
            } else {
                responder.respond(.json(200, Array("{\"next\":true}".utf8)))
            }
        }
        let client = harness.connect()
        client.send("HEAD /big HTTP/1.1\r\nHost: t\r\n\r\nGET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump { client.peekText().hasSuffix("{\"next\":true}") }
        #expect(pieces.made == 0)
        #expect(harness.handler.seen.map(\.head.path) == ["/big", "/next"])
        let text = client.peekText()
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.components(separatedBy: "HTTP/1.1 200").count == 3)
    }
}
