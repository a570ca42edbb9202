#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import TLS

@Suite struct TLSSessionTests {
    /// A client and a server session of ours over a socket pair.
    struct Pair {
        let client: TLSSession
        let server: TLSSession
        let clientFD: Int32
        let serverFD: Int32

        init(client: TLSClientContext, server: TLSServerContext, serverName: String = "localhost") throws {
            (clientFD, serverFD) = socketPair()
            self.client = try TLSSession(client: client, fd: clientFD, serverName: serverName)
            self.server = try TLSSession(server: server, fd: serverFD)
        }

        func close() {
            Glibc.close(clientFD)
            Glibc.close(serverFD)
        }
    }

    @Test func ourClientAndServerAgreeOnALPNAndCarryBytesBothWays() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        let server = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key, alpn: ["h2", "http/1.1"])
        let client = try TLSClientContext(alpn: ["http/1.1", "h2"], extraCAFile: certificate)
        let pair = try Pair(client: client, server: server)
        defer { pair.close() }
        let (clientStep, serverStep) = handshake(pair.client, pair.server)
        #expect(clientStep == .done)
        #expect(serverStep == .done)
        // The server's order wins.
        #expect(pair.client.alpnProtocol == "h2")
        #expect(pair.server.alpnProtocol == "h2")
        #expect(pair.client.protocolVersion == "TLSv1.3")

        let request = [UInt8](repeating: 0x61, count: 100_000)
        // Write and read in turns: the socket buffer is smaller than the message.
        var sent = 0
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        for _ in 0..<10_000 where received.count < request.count {
            if sent < request.count {
                if case .bytes(let n) = request.withUnsafeBytes({ pair.client.write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }) {
                    sent += n
                }
            }
            if case .bytes(let n) = buffer.withUnsafeMutableBytes({ pair.server.read(into: $0) }) {
                received += buffer[0..<n]
            }
        }
        #expect(received == request)

        #expect(writeAll(pair.server, fd: pair.serverFD, Array("pong".utf8)) == nil)
        let (answer, _) = readAll(pair.client, fd: pair.clientFD) { $0.count >= 4 }
        #expect(answer == Array("pong".utf8))

        // close_notify reads as the end of the session.
        pair.server.shutdown()
        let (rest, end) = readAll(pair.client, fd: pair.clientFD) { _ in false }
        #expect(rest.isEmpty)
        #expect(end == .closed)
    }

    @Test func aTCPEndWithoutCloseNotifyReadsAsClosed() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        let server = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
        let client = try TLSClientContext(extraCAFile: certificate)
        let pair = try Pair(client: client, server: server)
        defer { Glibc.close(pair.clientFD) }
        #expect(handshake(pair.client, pair.server) == (.done, .done))
        Glibc.close(pair.serverFD)
        let (_, end) = readAll(pair.client, fd: pair.clientFD) { _ in false }
        #expect(end == .closed)
    }

    @Test func aClientRefusesACertificateNoTrustedCASigned() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        let server = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
        let client = try TLSClientContext()
        let pair = try Pair(client: client, server: server)
        defer { pair.close() }
        let (clientStep, _) = handshake(pair.client, pair.server)
        guard case .failed(let error) = clientStep else {
            Issue.record("handshake did not fail: \(clientStep)")
            return
        }
        #expect(error.kind == .handshake)
        #expect(error.message.contains("certificate verification failed: self-signed certificate"), "\(error)")
    }

    @Test func aClientRefusesACertificateForAnotherName() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        let server = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
        let client = try TLSClientContext(extraCAFile: certificate)
        for name in ["api.push.apple.com", "127.0.0.2"] {
            let pair = try Pair(client: client, server: server, serverName: name)
            defer { pair.close() }
            let (clientStep, _) = handshake(pair.client, pair.server)
            guard case .failed(let error) = clientStep else {
                Issue.record("handshake for \(name) did not fail: \(clientStep)")
                continue
            }
            #expect(error.message.contains("certificate verification failed"), "\(error)")
            #expect(error.message.contains("mismatch"), "\(error)")
        }
        // The IP address in the certificate is accepted as a name.
        let pair = try Pair(client: client, server: server, serverName: "127.0.0.1")
        defer { pair.close() }
        #expect(handshake(pair.client, pair.server) == (.done, .done))
    }

    @Test func noProtocolInCommonEndsTheHandshake() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        let server = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key, alpn: ["http/1.1"])
        let client = try TLSClientContext(alpn: ["h2"], extraCAFile: certificate)
        let pair = try Pair(client: client, server: server)
        defer { pair.close() }
        let (clientStep, serverStep) = handshake(pair.client, pair.server)
        guard case .failed(let error) = clientStep, case .failed = serverStep else {
            Issue.record("handshake did not fail: \(clientStep) \(serverStep)")
            return
        }
        #expect(error.message.contains("no application protocol"), "\(error)")
    }

    @Test func aReloadedCertificateServesNewSessionsOnly() throws {
        let fixture = TLSFixture()
        let first = try fixture.selfSigned("first")
        let second = try fixture.selfSigned("second")
        let server = try TLSServerContext(certificateChainFile: first.certificate, privateKeyFile: first.key)
        let trustsFirst = try TLSClientContext(extraCAFile: first.certificate)
        let trustsSecond = try TLSClientContext(extraCAFile: second.certificate)

        let before = try Pair(client: trustsFirst, server: server)
        defer { before.close() }
        try server.reload(certificateChainFile: second.certificate, privateKeyFile: second.key)
        // Made before the reload: still the first certificate.
        #expect(handshake(before.client, before.server) == (.done, .done))

        let after = try Pair(client: trustsSecond, server: server)
        defer { after.close() }
        #expect(handshake(after.client, after.server) == (.done, .done))
        let stale = try Pair(client: trustsFirst, server: server)
        defer { stale.close() }
        guard case .failed = handshake(stale.client, stale.server).0 else {
            Issue.record("the first certificate is still served")
            return
        }
    }

    @Test func aFailedReloadKeepsTheOldCertificate() throws {
        let fixture = TLSFixture()
        let first = try fixture.selfSigned("first")
        let second = try fixture.selfSigned("second")
        let server = try TLSServerContext(certificateChainFile: first.certificate, privateKeyFile: first.key)
        #expect(throws: TLSError.self) {
            try server.reload(certificateChainFile: second.certificate, privateKeyFile: first.key)
        }
        do {
            try server.reload(certificateChainFile: fixture.directory.file("missing.pem"), privateKeyFile: first.key)
            Issue.record("a missing file was loaded")
        } catch {
            #expect(error.kind == .configuration)
            #expect(error.message.contains("missing.pem"))
        }
        let pair = try Pair(client: try TLSClientContext(extraCAFile: first.certificate), server: server)
        defer { pair.close() }
        #expect(handshake(pair.client, pair.server) == (.done, .done))
    }

    @Test func contextsRefuseBadFiles() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        TemporaryDirectory.write(Array("not a certificate".utf8), to: fixture.directory.file("junk.pem"))
        #expect(throws: TLSError.self) { try TLSClientContext(extraCAFile: fixture.directory.file("junk.pem")) }
        #expect(throws: TLSError.self) { try TLSServerContext(certificateChainFile: key, privateKeyFile: key) }
        #expect(throws: TLSError.self) { try TLSServerContext(certificateChainFile: certificate, privateKeyFile: certificate) }
        #expect(throws: TLSError.self) { try TLSClientContext(alpn: [""]) }
        // The system's CAs wait for the first session; a file given is still read at once.
        #expect(throws: TLSError.self) { try TLSClientContext(extraCAFile: fixture.directory.file("missing.pem")) }
        #expect(throws: TLSError.self) {
            try TLSClientContext(trust: .only(caFile: fixture.directory.file("missing.pem")), check: .chain)
        }
    }
}
