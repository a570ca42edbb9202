#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import HTTPTestSupport
import Testing
@testable import HTTP
import Transports

/// A transport that takes everything the socket has at once and hands it out a few bytes per
/// read, as TLS hands out a decrypted record: epoll says nothing about what it holds. Until
/// `establishedAfterBytes` bytes came in, it is not established (a handshake in progress).
final class TricklingTransport: Transport {
    let fd: Int32
    let step: Int
    let establishedAfterBytes: Int
    private var held: [UInt8] = []
    private var received = 0
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)

    deinit { scratch.deallocate() }

    init(fd: Int32, step: Int, establishedAfterBytes: Int = 0) {
        self.fd = fd
        self.step = step
        self.establishedAfterBytes = establishedAfterBytes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        let count = try Socket.read(fd, into: scratch)
        if let count {
            if count == 0 && held.isEmpty { return 0 }
            held += UnsafeRawBufferPointer(rebasing: scratch[..<count])
            received += count
        }
        guard isEstablished else { held.removeAll(); return nil }
        guard !held.isEmpty else { return nil }
        let n = min(step, held.count, buffer.count)
        for i in 0..<n { buffer[i] = held[i] }
        held.removeFirst(n)
        return n
    }

    func write(_ chunks: ArraySlice<[UInt8]>, skipping offset: Int) throws(Errno) -> Int? {
        try Socket.write(fd, from: chunks, skipping: offset)
    }

    var hasBufferedInput: Bool { !held.isEmpty }
    var neededInterest: Interest { [] }
    var isEstablished: Bool { received >= establishedAfterBytes }
    var applicationProtocol: String? { nil }
    func establish() throws(TransportError) -> Bool { isEstablished }
    func shutdownWrite() { Socket.shutdownWrite(fd) }
    func close() { Socket.close(fd) }
}

final class TricklingFactory: TransportFactory {
    let step: Int
    let establishedAfterBytes: Int
    init(step: Int, establishedAfterBytes: Int = 0) {
        self.step = step
        self.establishedAfterBytes = establishedAfterBytes
    }
    func makeTransport(fd: Int32) throws(Errno) -> any Transport {
        TricklingTransport(fd: fd, step: step, establishedAfterBytes: establishedAfterBytes)
    }
}

@Suite struct TransportTests {
    /// Five requests arrive in one segment; the transport holds them and hands out 7 bytes a
    /// read. No readable event comes for what it holds, yet every request is answered, in order.
    @Test func inputHeldByTheTransportIsReadWithoutAnEvent() throws {
        let harness = try ServerHarness()
        harness.server.transportFactory = TricklingFactory(step: 7)
        harness.handler.onRequest = { request, responder in
            responder.respond(.json(200, Array(request.head.path.utf8)))
        }
        let client = harness.connect()
        client.send((1...5).map { "GET /\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        let bodies = (0..<5).compactMap { _ in harness.response(client)?.bodyText }
        #expect(bodies == ["/1", "/2", "/3", "/4", "/5"])
    }

    /// Bytes that do not make the transport established (a handshake trickled in) do not move
    /// the deadline: the connection is closed after the header timeout, long before the idle one.
    @Test func aTransportNeverEstablishedIsClosedAfterTheHeaderTimeout() throws {
        let harness = try ServerHarness { config in
            config.headerTimeout = .seconds(2)
            config.idleTimeout = .seconds(600)
        }
        harness.server.transportFactory = TricklingFactory(step: 100, establishedAfterBytes: 1_000_000)
        let client = harness.connect()
        for _ in 0..<3 {
            client.send("x")
            harness.pump(rounds: 20)
            harness.advance(by: .milliseconds(600))
            harness.pump(rounds: 20)
        }
        client.poll()
        #expect(!client.isClosed)
        harness.advance(by: .milliseconds(500))
        harness.pump(rounds: 50) { client.poll(); return client.isClosed }
        #expect(client.isClosed)
        // No answer was written into a transport that never carried a request.
        #expect(client.takeText() == "")
    }

    /// Once established, an idle connection waits for the idle timeout as before.
    @Test func anEstablishedTransportWaitsForTheIdleTimeout() throws {
        let harness = try ServerHarness { config in
            config.headerTimeout = .seconds(2)
            config.idleTimeout = .seconds(600)
        }
        harness.server.transportFactory = TricklingFactory(step: 100)
        let client = harness.connect()
        client.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(harness.response(client)?.status == 200)
        harness.advance(by: .seconds(30))
        harness.pump(rounds: 50)
        client.poll()
        #expect(!client.isClosed)
    }
}
