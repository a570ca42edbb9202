#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
import TestSupport
import TLS
import Transports

/// A client `TLSTransport` against a server `TLSTransport` over a loopback TCP connection,
/// both driven by one event loop, as APNs and the HTTP server drive theirs.
@Suite struct TLSTransportTests {
    let directory = TemporaryDirectory()

    init() {
        // A written socket whose peer is gone must give EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Both ends on `loop`: the client establishes first (as APNs does), the server sets
    /// itself up inside its reads and writes (as the HTTP server does).
    func pair(
        _ loop: EventLoop, client: TLSClientContext, server: TLSServerContext, serverName: String = "localhost"
    ) throws -> (client: LoopPeer, server: LoopPeer) {
        let fds = try loopbackPair(loop)
        let clientPeer = try LoopPeer(
            loop: loop, transport: try TLSTransport(client: client, fd: fds.client, serverName: serverName), establishes: true)
        let serverPeer = try LoopPeer(loop: loop, transport: try TLSTransport(server: server, fd: fds.server), establishes: false)
        return (clientPeer, serverPeer)
    }

    @Test func theHandshakeAgreesOnTheServersFirstALPNChoiceAndBytesGoBothWaysInManyRecords() throws {
        let loop = try EventLoop()
        let cert = try selfSignedCertificate(in: directory, "server")
        let server = try TLSServerContext(certificateChainFile: cert.certificate, privateKeyFile: cert.key, alpn: ["h2", "http/1.1"])
        let client = try TLSClientContext(alpn: ["http/1.1", "h2"], extraCAFile: cert.certificate)
        let (a, b) = try pair(loop, client: client, server: server)
        defer { a.close(); b.close() }

        run(loop) { a.established || a.isDone }
        #expect(a.setupFailure == nil)
        #expect(a.transport.isEstablished)
        #expect(a.transport.applicationProtocol == "h2")

        // A TLS record carries at most 16 KiB: each side's bytes cross in many of them, and
        // in many reads and writes of a socket buffer.
        let up = pattern(300_000, seed: 1)
        let down = pattern(200_000, seed: 2)
        a.outbox = up
        b.outbox = down
        run(loop) { (a.received.count >= down.count && b.received.count >= up.count) || a.isDone || b.isDone }
        #expect(a.ioFailure == nil && b.ioFailure == nil)
        #expect(b.transport.isEstablished)
        #expect(b.transport.applicationProtocol == "h2")
        #expect(b.received == up)
        #expect(a.received == down)
        #expect(b.readCalls > up.count / 16384, "the bytes came in \(b.readCalls) reads")
    }

    @Test func aPeerThatShutsDownOrClosesEndsTheOtherSidesStream() throws {
        let loop = try EventLoop()
        let cert = try selfSignedCertificate(in: directory, "server")
        let server = try TLSServerContext(certificateChainFile: cert.certificate, privateKeyFile: cert.key)
        let client = try TLSClientContext(extraCAFile: cert.certificate)
        let (a, b) = try pair(loop, client: client, server: server)
        defer { a.close() }

        a.outbox = Array("last words".utf8)
        run(loop) { b.received.count == 10 || b.isDone }
        #expect(String(decoding: b.received, as: UTF8.self) == "last words")

        // close_notify from the client: the server reads the end of the stream.
        a.transport.shutdownWrite()
        run(loop) { b.ended || b.isDone }
        #expect(b.ended)
        #expect(b.ioFailure == nil)
        #expect(!a.ended)

        // The server's socket closes without a close_notify: the client reads the end too.
        b.close()
        run(loop) { a.ended || a.isDone }
        #expect(a.ended)
        #expect(a.ioFailure == nil)
    }

    @Test func aServerCertificateTheClientDoesNotTrustIsRefusedWithTheReason() throws {
        let loop = try EventLoop()
        let cert = try selfSignedCertificate(in: directory, "server")
        let server = try TLSServerContext(certificateChainFile: cert.certificate, privateKeyFile: cert.key)
        // The system's CAs only: a self-signed certificate is nobody's.
        let (a, b) = try pair(loop, client: try TLSClientContext(), server: server)
        defer { a.close(); b.close() }

        run(loop) { a.established || a.isDone }
        let failure = try #require(a.setupFailure)
        #expect(failure.description.contains("certificate verification failed"), "\(failure)")
        #expect(failure.description.contains("self-signed certificate") || failure.description.contains("self signed certificate"), "\(failure)")
        #expect(!a.transport.isEstablished)
        // The server never carries a byte: its read ends in an error or at the end.
        run(loop) { b.isDone || b.ended }
        #expect(b.received.isEmpty)
        #expect(!b.transport.isEstablished)
    }

    @Test func aTrustedCertificateForAnotherNameIsRefusedWithTheReason() throws {
        let loop = try EventLoop()
        let cert = try selfSignedCertificate(in: directory, "server")
        let server = try TLSServerContext(certificateChainFile: cert.certificate, privateKeyFile: cert.key)
        let client = try TLSClientContext(extraCAFile: cert.certificate)
        let (a, b) = try pair(loop, client: client, server: server, serverName: "push.example.com")
        defer { a.close(); b.close() }

        run(loop) { a.established || a.isDone }
        let failure = try #require(a.setupFailure)
        #expect(failure.description.contains("certificate verification failed"), "\(failure)")
        #expect(failure.description.contains("hostname mismatch"), "\(failure)")
    }
}
