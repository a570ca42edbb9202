#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import TLS

/// Our sessions against another implementation: the `openssl` command's test server and
/// client, over real loopback TCP.
@Suite struct OpenSSLToolTests {
    @Test func ourClientTalksToOpenSSLServer() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        let port = freeLoopbackPort()
        let server = try ChildProcess(
            ["openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-alpn", "h2", "-www", "-naccept", "1"],
            stdout: fixture.directory.file("s_server.out"), stderr: fixture.directory.file("s_server.err"))
        defer { server.terminate() }
        let fd = connectLoopback(port: port)
        try #require(fd >= 0, "s_server did not listen: \(fixture.read(fixture.directory.file("s_server.err")))")
        defer { close(fd) }
        let session = try TLSSession(client: try TLSClientContext(alpn: ["h2"], extraCAFile: certificate), fd: fd, serverName: "localhost")
        #expect(handshake(session, fd: fd) == .done)
        #expect(session.alpnProtocol == "h2")
        #expect(writeAll(session, fd: fd, Array("GET / HTTP/1.0\r\n\r\n".utf8)) == nil)
        let (page, end) = readAll(session, fd: fd) { _ in false }
        let text = String(decoding: page, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.0 200 ok"), "\(text.prefix(200))")
        #expect(text.contains("Protocol  : TLSv1.3"))
        #expect(end == .closed)
    }

    @Test func openSSLClientTalksToOurServer() throws {
        let fixture = TLSFixture()
        let (certificate, key) = try fixture.selfSigned("server")
        let context = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key, alpn: ["h2", "http/1.1"])
        let (listener, port) = bindLoopbackTCP()
        defer { close(listener) }
        listen(listener, 1)
        TemporaryDirectory.write(Array("hello from s_client\n".utf8), to: fixture.directory.file("input"))
        let client = try ChildProcess(
            ["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", "-alpn", "h2",
             "-CAfile", certificate, "-verify_return_error", "-verify_hostname", "localhost", "-ign_eof"],
            stdin: fixture.directory.file("input"),
            stdout: fixture.directory.file("s_client.out"), stderr: fixture.directory.file("s_client.err"))
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        try #require(poll(&entry, 1, 5000) == 1)
        let fd = accept(listener, nil, nil)
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let session = try TLSSession(server: context, fd: fd)
        #expect(handshake(session, fd: fd) == .done)
        #expect(session.alpnProtocol == "h2")
        let (line, _) = readAll(session, fd: fd) { $0.last == 10 }
        #expect(String(decoding: line, as: UTF8.self) == "hello from s_client\n")
        #expect(writeAll(session, fd: fd, Array("bye\n".utf8)) == nil)
        session.shutdown()
        #expect(client.wait() == 0)
        let output = fixture.read(fixture.directory.file("s_client.out"))
        #expect(output.contains("ALPN protocol: h2"), "\(output)")
        #expect(output.contains("Verify return code: 0 (ok)"))
        #expect(output.contains("bye"))
    }
}
