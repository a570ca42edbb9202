#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import EventLoop

@Suite struct SocketTests {
    func connect(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(result == 0)
        return fd
    }

    @Test func acceptReadAndWriteOnLoopback() throws {
        let listener = try Socket.listenTCP(address: [127, 0, 0, 1], port: 0)
        defer { Socket.close(listener) }
        #expect(Socket.isListeningStream(listener))
        let port = try #require(Socket.localPort(listener))
        #expect(try Socket.accept(listener) == nil)
        let client = connect(port: port)
        defer { Socket.close(client) }
        var accepted: Socket.Accepted?
        for _ in 0..<100 where accepted == nil {
            accepted = try Socket.accept(listener)
            if accepted == nil { usleep(1000) }
        }
        let server = try #require(accepted)
        defer { Socket.close(server.fd) }
        guard case .ip(let bytes, _) = server.peer else { Issue.record("not an IP peer"); return }
        #expect(bytes == [127, 0, 0, 1])
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try Socket.read(server.fd, into: $0) } == nil)
        _ = "ping".withCString { send(client, $0, 4, 0) }
        var got: Int?
        for _ in 0..<100 where got == nil {
            got = try buffer.withUnsafeMutableBytes { try Socket.read(server.fd, into: $0) }
            if got == nil { usleep(1000) }
        }
        #expect(got == 4)
        #expect(Array(buffer[0..<4]) == Array("ping".utf8))
        let written = try [UInt8]("pong".utf8).withUnsafeBytes { try Socket.write(server.fd, from: $0) }
        #expect(written == 4)
        Socket.close(client)
        // After the peer closes: end of stream (0), or a reset.
        var end: Int?
        for _ in 0..<100 where end == nil {
            do {
                end = try buffer.withUnsafeMutableBytes { try Socket.read(server.fd, into: $0) }
            } catch {
                end = 0
            }
            if end == nil { usleep(1000) }
        }
        #expect(end == 0)
    }

    @Test func writingToAClosedPeerGivesAnErrorNotSIGPIPE() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        Socket.close(pair[1])
        #expect(throws: Errno.brokenPipe) {
            _ = try [UInt8]("x".utf8).withUnsafeBytes { try Socket.write(pair[0], from: $0) }
        }
        Socket.close(pair[0])
    }

    @Test func aVectoredWriteSendsItsChunksInOrderFromTheOffsetInOneCall() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { Socket.close(pair[0]); Socket.close(pair[1]) }
        // One chunk more than a call takes: the last one stays for the next call.
        let chunks = (0...Socket.maxWriteChunks).map { [UInt8](repeating: UInt8($0), count: $0 + 2) }
        let written = try Socket.write(pair[0], from: chunks[...], skipping: 1)
        let expected = chunks.prefix(Socket.maxWriteChunks).joined().dropFirst()
        #expect(written == expected.count)
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = try buffer.withUnsafeMutableBytes { try Socket.read(pair[1], into: $0) }
        #expect(Array(buffer[0..<(count ?? 0)]) == Array(expected))
    }

    @Test func aVectoredWriteToAClosedPeerGivesAnErrorNotSIGPIPE() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        Socket.close(pair[1])
        #expect(throws: Errno.brokenPipe) {
            _ = try Socket.write(pair[0], from: [[1], [2]][...], skipping: 0)
        }
        Socket.close(pair[0])
    }

    @Test func unixListenerReplacesAStaleSocketFile() throws {
        let path = "/tmp/relaydeck-test-\(getpid()).sock"
        let first = try Socket.listenUnix(path: path)
        Socket.close(first)
        let second = try Socket.listenUnix(path: path)
        #expect(Socket.isListeningStream(second))
        Socket.close(second)
        unlink(path)
    }

    @Test func bindingAPortInUseFails() throws {
        let listener = try Socket.listenTCP(address: [127, 0, 0, 1], port: 0)
        defer { Socket.close(listener) }
        let port = try #require(Socket.localPort(listener))
        #expect(throws: Errno.addressInUse) { _ = try Socket.listenTCP(address: [127, 0, 0, 1], port: port) }
    }
}
