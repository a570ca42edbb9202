#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import TLS

/// The three peer checks of a client context (PostgreSQL's `require`, `verify-ca`,
/// `verify-full`), a trust of one CA file only, and the channel binding hash.
@Suite struct PeerCheckTests {
    /// A handshake with a server of the fixture's certificate `server` (made on first use).
    func handshakeResult(_ client: TLSClientContext, serverName: String, fixture: TLSFixture) throws -> (TLSHandshake, TLSSession) {
        let certificate = fixture.directory.file("server.pem")
        let key = fixture.directory.file("server-key.pem")
        if !fileExists(certificate) { _ = try fixture.selfSigned("server") }
        let server = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
        let (clientFD, serverFD) = socketPair()
        defer {
            close(clientFD)
            close(serverFD)
        }
        let clientSession = try TLSSession(client: client, fd: clientFD, serverName: serverName)
        let serverSession = try TLSSession(server: server, fd: serverFD)
        return (handshake(clientSession, serverSession).0, clientSession)
    }

    @Test func chainAndNameRefusesAnotherName() throws {
        let fixture = TLSFixture()
        let (certificate, _) = try fixture.selfSigned("server")
        let client = try TLSClientContext(trust: .only(caFile: certificate), check: .chainAndName)
        let (step, _) = try handshakeResult(client, serverName: "db.example.net", fixture: fixture)
        guard case .failed(let error) = step else {
            Issue.record("the handshake went through: \(step)")
            return
        }
        #expect(error.message.hasPrefix("certificate verification failed: hostname mismatch"), "\(error)")
    }

    @Test func chainAloneTakesAnyNameTheCAVouchesFor() throws {
        let fixture = TLSFixture()
        let (certificate, _) = try fixture.selfSigned("server")
        let client = try TLSClientContext(trust: .only(caFile: certificate), check: .chain)
        #expect(try handshakeResult(client, serverName: "db.example.net", fixture: fixture).0 == .done)
    }

    @Test func chainRefusesACertificateNoTrustedCASigned() throws {
        let fixture = TLSFixture()
        let (other, _) = try fixture.selfSigned("other", commonName: "other")
        let client = try TLSClientContext(trust: .only(caFile: other), check: .chain)
        guard case .failed(let error) = try handshakeResult(client, serverName: "localhost", fixture: fixture).0 else {
            Issue.record("the handshake went through")
            return
        }
        #expect(error.message.hasPrefix("certificate verification failed: self-signed certificate"), "\(error)")
    }

    @Test func noCheckTakesAnyCertificate() throws {
        let fixture = TLSFixture()
        let client = try TLSClientContext(trust: .system(extraCAFile: nil), check: .none)
        #expect(try handshakeResult(client, serverName: "db.example.net", fixture: fixture).0 == .done)
    }

    @Test func theServerEndPointHashIsTheCertificatesSHA256() throws {
        let fixture = TLSFixture()
        let client = try TLSClientContext(trust: .system(extraCAFile: nil), check: .none)
        let (step, session) = try handshakeResult(client, serverName: "localhost", fixture: fixture)
        #expect(step == .done)
        // The P-256 certificate is signed with ecdsa-with-SHA256: its hash is SHA-256 (RFC 5929 4.1).
        let der = fixture.directory.file("server.der")
        #expect(try ChildProcess.run(["openssl", "x509", "-in", fixture.directory.file("server.pem"), "-outform", "DER", "-out", der],
                                     output: fixture.directory.file("der.log")) == 0)
        let digest = fixture.directory.file("digest.txt")
        #expect(try ChildProcess.run(["openssl", "dgst", "-sha256", "-r", "-out", digest, der], output: fixture.directory.file("dgst.log")) == 0)
        let expected = String(fixture.read(digest).prefix(64))
        let hash = try #require(session.serverEndPointHash)
        #expect(hash.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() == expected)
    }
}
