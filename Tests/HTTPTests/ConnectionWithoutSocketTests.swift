import EventLoop
@testable import HTTP
import Transports
import Testing

/// A transport in memory: the test puts the client's bytes in and reads the server's out.
/// `room` bounds what a write takes (a client that never reads fills it).
final class MemoryTransport: Transport {
    var input: [UInt8] = []
    var inputEnded = false
    private(set) var written: [UInt8] = []
    var room = Int.max
    private(set) var writeCalls = 0
    private(set) var isShutDown = false
    private(set) var isClosed = false

    let fd: Int32 = -1
    var hasBufferedInput: Bool { false }
    var neededInterest: Interest { [] }
    var isEstablished: Bool { true }
    var applicationProtocol: String? { nil }
    func establish() throws(TransportError) -> Bool { true }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        guard !input.isEmpty else { return inputEnded ? 0 : nil }
        let count = min(buffer.count, input.count)
        buffer.copyBytes(from: input[..<count])
        input.removeFirst(count)
        return count
    }

    func write(_ chunks: ArraySlice<[UInt8]>, skipping offset: Int) throws(Errno) -> Int? {
        writeCalls += 1
        guard room > 0 else { return nil }
        var taken = 0
        var skip = offset
        for chunk in chunks.prefix(Socket.maxWriteChunks) {
            let bytes = chunk[skip...].prefix(room - taken)
            skip = 0
            written.append(contentsOf: bytes)
            taken += bytes.count
            if taken == room { break }
        }
        if room != .max { room -= taken }
        return taken
    }

    func shutdownWrite() { isShutDown = true }
    func close() { isClosed = true }

    /// What the server wrote, as text, taken out.
    func take() -> String {
        defer { written = [] }
        return String(decoding: written, as: UTF8.self)
    }
}

/// One connection of a server on a loop with a manual clock, fed through a `MemoryTransport`:
/// no socket, no registration (so no epoll interest is changed), and the test runs the turn's
/// end itself (`endTurn`).
final class MemoryConnection {
    let clock = ManualClock()
    let loop: EventLoop
    let handler = TestHandler()
    let server: HTTPServer
    let transport = MemoryTransport()
    let connection: HTTPConnection

    init(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        loop = try EventLoop(clock: clock)
        var configuration = HTTPServerConfiguration()
        configure(&configuration)
        server = HTTPServer(loop: loop, configuration: configuration, handler: handler)
        connection = HTTPConnection(server: server, transport: transport, peer: .ip(bytes: [127, 0, 0, 1], port: 1))
    }

    /// The client sends `text`; the connection gets a readable event.
    func send(_ text: String) {
        transport.input.append(contentsOf: text.utf8)
        connection.handleIO(.readable)
    }

    /// The rest of the loop's turn: the queued work (the end-of-turn flush), then due timers.
    func endTurn() {
        loop.runOnce(maxWait: .zero)
    }

    func advance(by span: TimeSpan) {
        clock.advance(by: span)
        loop.runOnce(maxWait: .zero)
    }
}

@Suite struct ConnectionWithoutSocketTests {
    static let get = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n"

    @Test func anAnswerLeavesAtTheEndOfTheTurnHoweverQuicklyItWasMade() throws {
        let memory = try MemoryConnection()
        memory.send(Self.get)
        // The handler answered at once; the answer still waits for the turn's end, with the
        // answers of the other connections (no measured time decides it).
        #expect(memory.transport.take().isEmpty)
        memory.endTurn()
        #expect(memory.transport.take().hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test func aRefusalLeavesAtOnce() throws {
        let memory = try MemoryConnection()
        memory.send("GET /a HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n")
        #expect(memory.transport.take().hasPrefix("HTTP/1.1 400 "))
        #expect(memory.connection.state == .lingering && memory.transport.isShutDown)
    }

    @Test func anAnswerHeldToTheEndOfTheTurnLeavesWhenGivenAndRequestsBehindItWait() throws {
        let memory = try MemoryConnection()
        var held: [ParkedRequest] = []
        memory.handler.onRequest = { request, responder in
            if request.head.target == "/held" {
                held.append(responder.parkUntilEndOfTurn(timeout: .seconds(5)))
            } else {
                responder.respond(.json(200, Array("{\"second\":true}".utf8)))
            }
        }
        memory.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n" + Self.get)
        #expect(memory.connection.state == .held)
        #expect(memory.handler.seen.count == 1)
        // Held, not parked: the interest is not narrowed to a wait's.
        #expect(memory.connection.interest == .readable)
        // The turn's end (the group commit) gives the answer: it leaves at once, then the
        // pipelined request behind it is handled.
        try #require(held.count == 1)
        held[0].respond(.json(201, Array("{\"first\":true}".utf8)))
        let first = memory.transport.take()
        #expect(first.hasPrefix("HTTP/1.1 201 ") && first.hasSuffix("{\"first\":true}"))
        memory.endTurn()
        #expect(memory.handler.seen.count == 2)
        memory.endTurn()
        #expect(memory.transport.take().hasSuffix("{\"second\":true}"))
    }

    @Test func aHeldAnswerWhoseClientWentAwayIsCancelled() throws {
        let memory = try MemoryConnection()
        var cancelled = false
        memory.handler.onRequest = { _, responder in
            let held = responder.parkUntilEndOfTurn(timeout: .seconds(5))
            held.onCancel = { _ in cancelled = true }
        }
        memory.send(Self.get)
        memory.connection.handleIO(.hangup)
        #expect(cancelled && memory.transport.isClosed)
    }

    @Test func aTricklingBodyIsCutByTheManualClock() throws {
        let memory = try MemoryConnection { $0.bodyTimeout = .seconds(10); $0.bodyMinimumRate = 1024 }
        memory.send("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        // A byte every 4 s: under the pause bound each time, far below the rate.
        for _ in 0..<2 {
            memory.advance(by: .seconds(4))
            memory.send("x")
        }
        #expect(memory.transport.take().isEmpty)
        // Cut one body timeout after the head (2 bytes earned 2 ms), long before a pause of
        // 10 s since the last byte.
        memory.advance(by: .milliseconds(2_010))
        #expect(memory.transport.take().hasPrefix("HTTP/1.1 408 "))
        #expect(memory.handler.seen.isEmpty)
    }

    @Test func aClientThatNeverReadsStopsBeingReadPastTheBacklog() throws {
        let memory = try MemoryConnection { $0.maxResponseBacklog = 64 * 1024 }
        let body = [UInt8](repeating: 0x61, count: 40 * 1024)
        memory.handler.onRequest = { _, responder in responder.respond(.json(200, body)) }
        memory.transport.room = 0
        memory.send(String(repeating: Self.get, count: 10))
        memory.endTurn()
        // Two answers pass the bound (one may overshoot it); the other requests wait unread.
        #expect(memory.handler.seen.count == 2)
        #expect(memory.connection.queuedOutputBytes > 64 * 1024)
        memory.connection.handleIO(.readable)
        #expect(memory.handler.seen.count == 2)
        // The client reads: the writable event drains the answers and takes up the rest.
        memory.transport.room = .max
        memory.connection.handleIO(.writable)
        memory.endTurn()
        #expect(memory.handler.seen.count > 2)
    }

    @Test func sixteenPipelinedRequestsPerTurnThenTheRestOnALaterTurn() throws {
        let memory = try MemoryConnection()
        memory.send(String(repeating: Self.get, count: 20))
        #expect(memory.handler.seen.count == 16)
        memory.endTurn()
        memory.endTurn()
        #expect(memory.handler.seen.count == 20)
        #expect(memory.transport.take().split(separator: "HTTP/1.1 200 OK", omittingEmptySubsequences: false).count - 1 == 20)
    }

    @Test func aProducedBodyLeavesInChunksAndHoldsTheNextRequest() throws {
        final class Pieces: HTTPBodyProducer {
            var left = 3
            func nextPiece() -> [UInt8]? {
                guard left > 0 else { return nil }
                left -= 1
                return Array("piece".utf8)
            }
        }
        let memory = try MemoryConnection()
        memory.handler.onRequest = { request, responder in
            var response = HTTPResponse(status: 200)
            if request.head.target == "/produced" { response.producer = Pieces() }
            responder.respond(response)
        }
        memory.send("GET /produced HTTP/1.1\r\nHost: t\r\n\r\n" + Self.get)
        #expect(memory.handler.seen.count == 1)
        memory.endTurn()
        memory.endTurn()
        memory.endTurn()
        let text = memory.transport.take()
        #expect(text.contains("Transfer-Encoding: chunked\r\n"))
        #expect(text.contains("5\r\npiece\r\n5\r\npiece\r\n5\r\npiece\r\n0\r\n\r\nHTTP/1.1 200 OK"))
        #expect(memory.handler.seen.count == 2)
    }

    @Test func pipelinedRequestsBehindAParkedOneWaitUntilItIsAnsweredThenComeOnALaterTurn() throws {
        let memory = try MemoryConnection()
        var parked: ParkedRequest?
        memory.handler.onRequest = { request, responder in
            if request.head.target == "/wait" {
                parked = responder.park(timeout: .seconds(30))
            } else {
                responder.respond(.json(200, Array("{\"next\":true}".utf8)))
            }
        }
        memory.send("GET /wait HTTP/1.1\r\nHost: t\r\n\r\n" + Self.get)
        memory.endTurn()
        #expect(memory.connection.state == .parked && memory.handler.seen.count == 1)
        memory.advance(by: .seconds(10))
        #expect(memory.handler.seen.count == 1 && memory.transport.take().isEmpty)
        try #require(parked).respond(.json(200, Array("{\"woke\":true}".utf8)))
        // The answer leaves at once; the kept request is taken up on a later turn, not from
        // inside the code that answered.
        #expect(memory.transport.take().hasSuffix("{\"woke\":true}"))
        #expect(memory.handler.seen.count == 1)
        memory.endTurn()
        memory.endTurn()
        #expect(memory.handler.seen.count == 2)
        #expect(memory.transport.take().hasSuffix("{\"next\":true}"))
    }

    @Test func aStoppingServerEndsAParkedRequestThroughItsTimeoutAndClosesAfterTheAnswer() throws {
        let memory = try MemoryConnection()
        memory.handler.onRequest = { _, responder in
            let parked = responder.park(timeout: .seconds(30))
            parked.onTimeout = { $0.respond(.json(200, Array("{\"stopped\":true}".utf8))) }
        }
        memory.send(Self.get)
        memory.endTurn()
        // What `HTTPServer.shutdown` does for each of its connections.
        memory.connection.beginShutdown()
        memory.connection.settle()
        let text = memory.transport.take()
        #expect(text.contains("Connection: close\r\n") && text.hasSuffix("{\"stopped\":true}"))
        #expect(memory.transport.isClosed)
    }
}
