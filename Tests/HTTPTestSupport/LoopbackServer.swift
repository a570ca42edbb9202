#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import HTTP

/// A server on 127.0.0.1 with a manual clock, pumped by the test itself: one thread, no races.
public final class LoopbackServer {
    public let clock: ManualClock
    public let loop: EventLoop
    public let server: HTTPServer
    public let port: UInt16

    public init(loop: EventLoop, clock: ManualClock, handler: any HTTPHandler,
                _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        self.loop = loop
        self.clock = clock
        var configuration = HTTPServerConfiguration()
        configure(&configuration)
        server = HTTPServer(loop: loop, configuration: configuration, handler: handler)
        let fd = try Socket.listenTCP(address: [127, 0, 0, 1], port: 0)
        port = Socket.localPort(fd)!
        try server.listen(on: fd)
    }

    public func connect() -> TestClient {
        let client = TestClient(port: port)
        pump(rounds: 3)
        return client
    }

    /// Runs the loop until `done` holds (or a round limit, so a failing test ends).
    public func pump(rounds: Int = 400, until done: () -> Bool = { false }) {
        for _ in 0..<rounds {
            if done() { return }
            loop.runOnce(maxWait: .milliseconds(2))
        }
    }

    /// Pumps until the client has a complete response (or closed), then takes it.
    public func response(_ client: TestClient) -> TestResponse? {
        pump { client.hasCompleteResponse || client.isClosed }
        return client.takeResponse()
    }

    public func advance(by span: TimeSpan) {
        clock.advance(by: span)
        pump(rounds: 5)
    }
}

public struct TestResponse {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A non-blocking client socket with a tiny response reader.
public final class TestClient {
    public let fd: Int32
    public private(set) var received: [UInt8] = []
    public private(set) var isClosed = false

    public init(port: UInt16, receiveBuffer: Int32? = nil) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    private var closedHere = false

    deinit { close() }

    /// Closes the socket now, as a client that goes away.
    public func close() {
        guard !closedHere else { return }
        closedHere = true
        Glibc.close(fd)
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n } else { usleep(200) }
            if n < 0 && errno != EAGAIN { return }
        }
    }

    /// Sends what the socket takes now, without waiting; returns the bytes sent.
    public func sendSome(_ bytes: ArraySlice<UInt8>) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return max(0, n)
    }

    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads whatever has arrived.
    public func poll() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received.append(contentsOf: buffer[0..<n])
            } else {
                if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { isClosed = true }
                return
            }
        }
    }

    public var hasCompleteResponse: Bool {
        poll()
        return TestClient.parse(received) != nil
    }

    public func takeResponse() -> TestResponse? {
        poll()
        guard let (response, length) = TestClient.parse(received) else { return nil }
        received.removeFirst(length)
        return response
    }

    /// What has arrived so far, left in place.
    public func peekText() -> String {
        poll()
        return String(decoding: received, as: UTF8.self)
    }

    /// Takes `count` raw bytes that have arrived (for streams and interim answers).
    public func takeText() -> String {
        poll()
        defer { received.removeAll() }
        return String(decoding: received, as: UTF8.self)
    }

    public static func parse(_ bytes: [UInt8]) -> (TestResponse, Int)? {
        let marker: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == marker }) else { return nil }
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1].drop(while: { $0 == " " })) : "")
        }
        let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        let total = end + 4 + length
        guard bytes.count >= total else { return nil }
        return (TestResponse(status: status, headers: headers, body: Array(bytes[(end + 4)..<total])), total)
    }
}

extension String {
    public func components(separatedBy separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
