#if canImport(Glibc)
import Glibc
#endif
import EventLoop
@testable import HTTP
import HTTPTestSupport

/// A test handler: each test says what to do with a request.
final class TestHandler: HTTPHandler {
    var onRequest: (HTTPRequest, HTTPResponder) -> Void = { _, responder in
        responder.respond(.json(200, Array("{\"ok\":true}".utf8)))
    }
    var seen: [HTTPRequest] = []

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        seen.append(request)
        onRequest(request, responder)
    }

    func refusal(status: Int, reason: String) -> HTTPResponse {
        .json(status, Array("{\"error\":{\"code\":\"refused\",\"status\":\(status)}}".utf8))
    }
}

/// The loopback server with a `TestHandler` that each test programs.
final class ServerHarness {
    let handler = TestHandler()
    let loopback: LoopbackServer

    init(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        let clock = ManualClock()
        loopback = try LoopbackServer(loop: try EventLoop(clock: clock), clock: clock, handler: handler, configure)
    }

    var clock: ManualClock { loopback.clock }
    var loop: EventLoop { loopback.loop }
    var server: HTTPServer { loopback.server }
    var port: UInt16 { loopback.port }

    func connect() -> TestClient { loopback.connect() }
    func pump(rounds: Int = 400, until done: () -> Bool = { false }) { loopback.pump(rounds: rounds, until: done) }
    func response(_ client: TestClient) -> TestResponse? { loopback.response(client) }
    func advance(by span: TimeSpan) { loopback.advance(by: span) }
}
