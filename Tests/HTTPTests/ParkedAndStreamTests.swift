#if canImport(Glibc)
import Glibc
import HTTPTestSupport
#endif
import EventLoop
import Testing
@testable import HTTP

@Suite struct ParkedAndStreamTests {
    @Test func aParkedRequestIsAnsweredLaterAndThePipelinedOneAfterIt() throws {
        let harness = try ServerHarness()
        var parked: ParkedRequest?
        harness.handler.onRequest = { request, responder in
            if request.head.path == "/wait" {
                parked = responder.park(timeout: .seconds(30))
            } else {
                responder.respond(.json(200, Array(request.head.path.utf8)))
            }
        }
        let client = harness.connect()
        client.send("GET /wait HTTP/1.1\r\nHost: t\r\n\r\nGET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump(rounds: 5)
        #expect(!client.hasCompleteResponse)
        #expect(harness.handler.seen.count == 1)
        let other = harness.connect()
        other.send("GET /other HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(harness.response(other)?.bodyText == "/other")
        try #require(parked).respond(.json(200, Array("released".utf8)))
        #expect(harness.response(client)?.bodyText == "released")
        #expect(harness.response(client)?.bodyText == "/after")
    }

    @Test func aParkedRequestAnswersOnItsTimer() throws {
        let harness = try ServerHarness()
        harness.handler.onRequest = { _, responder in
            let parked = responder.park(timeout: .seconds(30))
            parked.onTimeout = { $0.respond(.json(200, Array("timeout".utf8))) }
        }
        let client = harness.connect()
        client.send("GET /wait HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump(rounds: 5)
        harness.advance(by: .seconds(29))
        #expect(!client.hasCompleteResponse)
        harness.advance(by: .seconds(2))
        #expect(harness.response(client)?.bodyText == "timeout")
    }

    @Test func aClientThatGoesAwayCancelsItsParkedRequest() throws {
        let harness = try ServerHarness()
        var cancelled = false
        var parked: ParkedRequest?
        harness.handler.onRequest = { _, responder in
            parked = responder.park(timeout: .seconds(30))
            parked?.onCancel = { _ in cancelled = true }
        }
        var client: TestClient? = harness.connect()
        client?.send("GET /wait HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump(rounds: 5)
        client = nil
        harness.pump { cancelled }
        #expect(cancelled)
        #expect(parked?.isActive == false)
        #expect(harness.server.connectionCount == 0)
        // Answering it now is harmless.
        parked?.respond(.json(200, []))
    }

    @Test func stopEndsParkedRequestsWithTheirAnswerAndClosesIdleConnections() throws {
        let harness = try ServerHarness()
        harness.handler.onRequest = { request, responder in
            if request.head.path == "/wait" {
                let parked = responder.park(timeout: .seconds(30))
                parked.onTimeout = { $0.respond(.json(200, Array("ended".utf8))) }
            } else {
                responder.respond(.json(200, []))
            }
        }
        let idle = harness.connect()
        idle.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(harness.response(idle)?.status == 200)
        let waiting = harness.connect()
        waiting.send("GET /wait HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump(rounds: 5)
        var stopped = false
        harness.server.shutdown(timeout: .seconds(5)) { stopped = true }
        let answer = try #require(harness.response(waiting))
        #expect(answer.bodyText == "ended")
        #expect(answer.header("Connection") == "close")
        harness.pump { stopped }
        #expect(stopped)
        idle.poll()
        #expect(idle.isClosed)
    }

    @Test func aStreamSendsEventsAndPingsWhenQuiet() throws {
        let harness = try ServerHarness()
        var stream: EventStream?
        harness.handler.onRequest = { _, responder in
            stream = responder.openEventStream(pingInterval: .seconds(20))
            stream?.send(event: "ready", data: Array("{\"a\":1}".utf8))
        }
        let client = harness.connect()
        client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump { client.peekText().contains("\n\n") && client.peekText().contains("data:") }
        let opening = client.takeText()
        #expect(opening.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(opening.contains("Content-Type: text/event-stream\r\n"))
        #expect(opening.hasSuffix("\r\n\r\nevent: ready\ndata: {\"a\":1}\n\n"))
        harness.advance(by: .seconds(19))
        #expect(client.takeText() == "")
        harness.advance(by: .seconds(2))
        harness.pump { client.peekText().contains("ping") }
        #expect(client.takeText() == ": ping\n\n")
        stream?.send(event: "task.created", data: Array("{}".utf8))
        harness.pump { client.peekText().contains("task") }
        #expect(client.takeText() == "event: task.created\ndata: {}\n\n")
        stream?.end()
        harness.pump { client.poll(); return client.isClosed }
        #expect(client.isClosed)
        #expect(stream?.isOpen == false)
    }

    @Test func aStreamWhoseClientReadsTooSlowlyIsCutOff() throws {
        let harness = try ServerHarness { $0.maxStreamBacklog = 64 * 1024 }
        var stream: EventStream?
        var closed = false
        harness.handler.onRequest = { _, responder in
            stream = responder.openEventStream(pingInterval: .seconds(20))
            stream?.onClose = { _ in closed = true }
        }
        let client = TestClient(port: harness.port, receiveBuffer: 4096)
        harness.pump(rounds: 3)
        client.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump { stream != nil }
        let chunk = [UInt8](repeating: 0x61, count: 16 * 1024)
        var sent = 0
        while stream?.send(event: "x", data: chunk) == true && sent < 100_000 {
            sent += 1
            harness.pump(rounds: 1)
        }
        #expect(closed)
        #expect(stream?.isOpen == false)
        // Bounded: cut off long before 100,000 frames (1.6 GB) were buffered.
        #expect(sent < 1000)
    }

    @Test func aStreamEndsWhenTheClientGoesAway() throws {
        let harness = try ServerHarness()
        var closed = false
        harness.handler.onRequest = { _, responder in
            let stream = responder.openEventStream(pingInterval: .seconds(20))
            stream.onClose = { _ in closed = true }
        }
        var client: TestClient? = harness.connect()
        client?.send("GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        harness.pump(rounds: 5)
        client = nil
        harness.pump { closed }
        #expect(closed)
    }
}
