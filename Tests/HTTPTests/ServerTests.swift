#if canImport(Glibc)
import Glibc
import HTTPTestSupport
#endif
import EventLoop
import Testing
@testable import HTTP

@Suite struct ServerTests {
    let get = "GET /x HTTP/1.1\r\nHost: t\r\n\r\n"

    @Test func answersARequestAndKeepsTheConnectionAlive() throws {
        let harness = try ServerHarness()
        let client = harness.connect()
        client.send(get)
        let first = try #require(harness.response(client))
        #expect(first.status == 200)
        #expect(first.bodyText == "{\"ok\":true}")
        #expect(first.header("Content-Type") == "application/json")
        #expect(first.header("Date") != nil)
        #expect(first.header("Connection") == nil)
        client.send(get)
        #expect(harness.response(client)?.status == 200)
        #expect(!client.isClosed)
        #expect(harness.handler.seen.count == 2)
    }

    @Test func answersPipelinedRequestsInOrder() throws {
        let harness = try ServerHarness()
        harness.handler.onRequest = { request, responder in
            responder.respond(.json(200, Array(request.head.path.utf8)))
        }
        let client = harness.connect()
        client.send("GET /1 HTTP/1.1\r\nHost: t\r\n\r\nGET /2 HTTP/1.1\r\nHost: t\r\n\r\nGET /3 HTTP/1.1\r\nHost: t\r\n\r\n")
        let bodies = (0..<3).compactMap { _ in harness.response(client)?.bodyText }
        #expect(bodies == ["/1", "/2", "/3"])
    }

    @Test func requestSplitByteByByteIsAnsweredOnce() throws {
        let harness = try ServerHarness()
        harness.handler.onRequest = { request, responder in
            responder.respond(.json(201, request.body))
        }
        let client = harness.connect()
        let request = "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 7\r\n\r\n{\"a\":1}"
        for byte in request.utf8 {
            client.send([byte])
            harness.pump(rounds: 1)
        }
        let response = try #require(harness.response(client))
        #expect(response.status == 201)
        #expect(response.bodyText == "{\"a\":1}")
        #expect(harness.handler.seen.count == 1)
    }

    @Test func expectContinueGetsAnInterimAnswerBeforeTheBody() throws {
        let harness = try ServerHarness()
        harness.handler.onRequest = { request, responder in responder.respond(.json(200, request.body)) }
        let client = harness.connect()
        client.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        harness.pump { client.peekText().contains("100 Continue") }
        #expect(client.takeText() == "HTTP/1.1 100 Continue\r\n\r\n")
        client.send("{}")
        #expect(harness.response(client)?.bodyText == "{}")
    }

    @Test func bodyOverTheLimitGets413WithoutReadingItAndCloses() throws {
        let harness = try ServerHarness()
        let client = harness.connect()
        client.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\nExpect: 100-continue\r\n\r\n")
        let response = try #require(harness.response(client))
        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        #expect(response.bodyText.contains("\"status\":413"))
        #expect(harness.handler.seen.isEmpty)
        // The server drains a little and closes; the client sees the end, not a reset.
        client.shutdownWrite()
        harness.pump { client.isClosed || { client.poll(); return client.isClosed }() }
        #expect(client.isClosed)
    }

    @Test(arguments: [
        ("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET /x HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 20000))\r\n\r\n", 431),
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: t\r\n\r\n", 414),
        ("GET /x HTTP/1.1\r\n\r\n", 400),
        ("BROKEN\r\n\r\n", 400),
        ("GET /x HTTP/2.0\r\nHost: t\r\n\r\n", 505),
    ])
    func malformedRequestsGetTheirStatusAndAClose(request: String, status: Int) throws {
        let harness = try ServerHarness()
        let client = harness.connect()
        client.send(request)
        let response = try #require(harness.response(client))
        #expect(response.status == status)
        #expect(response.header("Connection") == "close")
        #expect(harness.handler.seen.isEmpty)
        harness.advance(by: .seconds(3))
        client.poll()
        #expect(client.isClosed)
    }

    @Test func slowHeadersGet408AndAClose() throws {
        let harness = try ServerHarness { $0.headerTimeout = .seconds(10) }
        let client = harness.connect()
        client.send("GET /x HTTP/1.1\r\nHo")
        harness.pump(rounds: 3)
        harness.advance(by: .seconds(9))
        client.poll()
        #expect(!client.hasCompleteResponse)
        // Trickling more bytes does not extend the time for the head.
        client.send("st: t\r\n")
        harness.pump(rounds: 3)
        harness.advance(by: .seconds(2))
        let response = try #require(harness.response(client))
        #expect(response.status == 408)
        #expect(response.header("Connection") == "close")
    }

    @Test func idleConnectionsAreClosedOnTheirTimer() throws {
        let harness = try ServerHarness { $0.idleTimeout = .seconds(75) }
        let client = harness.connect()
        client.send(get)
        #expect(harness.response(client)?.status == 200)
        harness.advance(by: .seconds(74))
        client.poll()
        #expect(!client.isClosed)
        harness.advance(by: .seconds(2))
        client.poll()
        #expect(client.isClosed)
        #expect(harness.server.connectionCount == 0)
    }

    @Test func connectionsOverTheCapGet503AndAreClosed() throws {
        let harness = try ServerHarness { $0.maxConnections = 2 }
        let first = harness.connect()
        let second = harness.connect()
        let third = harness.connect()
        third.send(get)
        let refused = try #require(harness.response(third))
        #expect(refused.status == 503)
        #expect(refused.header("Connection") == "close")
        first.send(get)
        second.send(get)
        #expect(harness.response(first)?.status == 200)
        #expect(harness.response(second)?.status == 200)
        #expect(harness.handler.seen.count == 2)
    }

    @Test func headRequestsGetTheLengthButNoBody() throws {
        let harness = try ServerHarness()
        let client = harness.connect()
        client.send("HEAD /x HTTP/1.1\r\nHost: t\r\n\r\n" + get)
        // The HEAD answer has Content-Length 11 and no body; the parser of the test would
        // read the next answer's bytes as its body, so read the raw text.
        harness.pump { client.peekText().components(separatedBy: "HTTP/1.1 200").count == 3 }
        let text = client.takeText()
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts.count == 3)
        #expect(parts[0].contains("Content-Length: 11"))
        #expect(parts[1].hasPrefix("HTTP/1.1 200"))
        #expect(parts[2] == "{\"ok\":true}")
    }

    @Test func aHandlerThatDoesNotAnswerGives500() throws {
        let harness = try ServerHarness()
        harness.handler.onRequest = { _, _ in }
        let client = harness.connect()
        client.send(get)
        #expect(harness.response(client)?.status == 500)
    }

    @Test func http10ClosesUnlessItAsksForKeepAlive() throws {
        let harness = try ServerHarness()
        let client = harness.connect()
        client.send("GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let kept = try #require(harness.response(client))
        #expect(kept.header("Connection") == "keep-alive")
        client.send("GET /x HTTP/1.0\r\n\r\n")
        let closed = try #require(harness.response(client))
        #expect(closed.header("Connection") == "close")
        harness.pump { client.poll(); return client.isClosed }
        #expect(client.isClosed)
    }
}
