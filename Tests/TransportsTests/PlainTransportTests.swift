#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
import TestSupport
import Transports

/// The plain transport over a loopback TCP connection on the loop, and the TCP connect.
@Suite struct PlainTransportTests {
    init() {
        signal(SIGPIPE, SIG_IGN)
    }

    @Test func plainTransportsAreEstablishedAtOnceAndCarryBytesBothWays() throws {
        let loop = try EventLoop()
        let fds = try loopbackPair(loop)
        let a = try LoopPeer(loop: loop, transport: PlainTransport(fd: fds.client), establishes: true)
        let b = try LoopPeer(loop: loop, transport: PlainTransport(fd: fds.server), establishes: false)
        defer { a.close(); b.close() }
        #expect(try a.transport.establish())
        #expect(a.transport.isEstablished)
        #expect(a.transport.applicationProtocol == nil)

        let up = pattern(300_000, seed: 3)
        let down = pattern(200_000, seed: 4)
        a.outbox = up
        b.outbox = down
        run(loop) { (a.received.count >= down.count && b.received.count >= up.count) || a.isDone || b.isDone }
        #expect(a.ioFailure == nil && b.ioFailure == nil)
        #expect(b.received == up)
        #expect(a.received == down)
    }

    @Test func aPeerThatShutsDownOrClosesEndsTheOtherSidesStream() throws {
        let loop = try EventLoop()
        let fds = try loopbackPair(loop)
        let a = try LoopPeer(loop: loop, transport: PlainTransport(fd: fds.client), establishes: true)
        let b = try LoopPeer(loop: loop, transport: PlainTransport(fd: fds.server), establishes: false)
        defer { a.close() }

        a.outbox = Array("bye".utf8)
        a.transport.shutdownWrite()
        run(loop) { b.ended || b.isDone }
        #expect(String(decoding: b.received, as: UTF8.self) == "bye")
        #expect(b.ended)
        #expect(!a.ended)

        b.close()
        run(loop) { a.ended || a.isDone }
        #expect(a.ended)
    }

    @Test func aTCPConnectToAPortNobodyListensOnFailsWithConnectionRefused() throws {
        let loop = try EventLoop()
        let (held, port) = closedLoopbackPort()
        defer { close(held) }

        let result = try connectOnLoop(loop, port: port)
        #expect(throws: Errno(ECONNREFUSED)) { try result.get() }
    }
}
