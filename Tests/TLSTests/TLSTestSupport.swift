#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import TLS

/// Certificates made with the `openssl` command for one test, and the ways of driving two
/// non-blocking sessions with poll(2) instead of an event loop.
final class TLSFixture {
    let directory = TemporaryDirectory()

    init() {
        // A written socket whose peer is gone must give EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// A self-signed P-256 certificate for `localhost` and 127.0.0.1: (certificate, key).
    func selfSigned(_ name: String, commonName: String = "localhost") throws -> (certificate: String, key: String) {
        let certificate = directory.file("\(name).pem")
        let key = directory.file("\(name)-key.pem")
        let status = try ChildProcess.run([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=\(commonName)",
            "-addext", "subjectAltName=DNS:\(commonName),IP:127.0.0.1",
        ], output: directory.file("\(name).log"))
        #expect(status == 0)
        return (certificate, key)
    }

    func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A connected pair of non-blocking Unix stream sockets.
func socketPair() -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    let status = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds)
    precondition(status == 0)
    return (fds[0], fds[1])
}

/// Waits until `fd` is readable or writable, at most `milliseconds`.
func wait(_ fd: Int32, forWriting: Bool, milliseconds: Int32 = 5000) {
    var entry = pollfd(fd: fd, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
    _ = poll(&entry, 1, milliseconds)
}

/// Runs the handshakes of two sessions, each on its own socket, until both are done or
/// one fails (or 1000 rounds pass).
func handshake(_ a: TLSSession, _ b: TLSSession) -> (TLSHandshake, TLSHandshake) {
    func final(_ step: TLSHandshake) -> Bool {
        if case .failed = step { return true }
        return step == .done
    }
    var first = TLSHandshake.wantRead
    var second = TLSHandshake.wantRead
    for _ in 0..<1000 {
        if !final(first) { first = a.handshake() }
        if !final(second) { second = b.handshake() }
        if final(first) && final(second) { break }
        usleep(200)
    }
    return (first, second)
}

/// Handshake of one session against a peer in another process, with poll.
func handshake(_ session: TLSSession, fd: Int32) -> TLSHandshake {
    for _ in 0..<200 {
        let step = session.handshake()
        switch step {
        case .done, .failed: return step
        case .wantRead: wait(fd, forWriting: false, milliseconds: 100)
        case .wantWrite: wait(fd, forWriting: true, milliseconds: 100)
        }
    }
    return .failed(TLSError(.handshake, "timed out"))
}

/// Reads until the session has `count` bytes, closes, or fails.
func readAll(_ session: TLSSession, fd: Int32, until done: ([UInt8]) -> Bool) -> ([UInt8], TLSIO?) {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    for _ in 0..<500 {
        let result = buffer.withUnsafeMutableBytes { session.read(into: $0) }
        switch result {
        case .bytes(let n):
            received += buffer[0..<n]
            if done(received) { return (received, nil) }
        case .wantRead: wait(fd, forWriting: false, milliseconds: 20)
        case .wantWrite: wait(fd, forWriting: true, milliseconds: 20)
        case .closed, .failed: return (received, result)
        }
    }
    return (received, nil)
}

func writeAll(_ session: TLSSession, fd: Int32, _ bytes: [UInt8]) -> TLSIO? {
    var offset = 0
    for _ in 0..<500 where offset < bytes.count {
        let result = bytes.withUnsafeBytes { session.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        switch result {
        case .bytes(let n): offset += n
        case .wantRead: wait(fd, forWriting: false, milliseconds: 20)
        case .wantWrite: wait(fd, forWriting: true, milliseconds: 20)
        case .closed, .failed: return result
        }
    }
    return nil
}


/// A blocking connect to 127.0.0.1:`port`, retried while the server starts; the socket is
/// then made non-blocking. -1 when nothing listens after 5 seconds.
func connectLoopback(port: UInt16) -> Int32 {
    for _ in 0..<250 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result == 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return fd
        }
        close(fd)
        usleep(20_000)
    }
    return -1
}
