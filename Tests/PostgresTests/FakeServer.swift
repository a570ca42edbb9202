#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
import TestSupport

/// A PostgreSQL server that misbehaves on purpose, on the test's loop over loopback: it
/// takes the start-up (and `SSLRequest`) and each typed message, and `script` decides what
/// to answer, including what a real server never does (a 2 GB length, rows without end,
/// silence, a flood).
final class FakeServer: IOHandler {
    /// What the script is told.
    enum Event {
        case sslRequest
        case startup
        case message(type: UInt8, body: [UInt8])
    }

    let loop: EventLoop
    let port: UInt16
    private let listener: Int32
    private var registration: IORegistration?
    private(set) var peer: FakePeer?
    let script: (FakePeer, Event) -> Void

    init(loop: EventLoop, script: @escaping (FakePeer, Event) -> Void) throws {
        self.loop = loop
        self.script = script
        let (fd, port) = bindLoopbackTCP()
        listener = fd
        self.port = port
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        try #require(listen(fd, 8) == 0)
        registration = try loop.register(fd: fd, interest: .readable, handler: self)
    }

    deinit {
        peer?.close()
        if let registration { loop.unregister(registration) }
        close(listener)
    }

    func handleIO(_ events: IOEvents) {
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        peer = try? FakePeer(fd: fd, server: self)
    }
}

/// One connection of the fake server.
final class FakePeer: IOHandler {
    let fd: Int32
    private unowned let server: FakeServer
    private var registration: IORegistration?
    private var input: [UInt8] = []
    private var outbox: [UInt8] = []
    private var sawStartup = false
    /// Called whenever the outbox has drained, to send without end.
    var refill: (() -> [UInt8])?
    private(set) var bytesSent = 0

    init(fd: Int32, server: FakeServer) throws {
        self.fd = fd
        self.server = server
        registration = try server.loop.register(fd: fd, interest: [.readable, .writable], handler: self)
    }

    func handleIO(_ events: IOEvents) {
        guard registration != nil else { return }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = read(fd, &buffer, buffer.count)
        if count == 0 {
            close()
            return
        }
        if count > 0 {
            input += buffer[0..<count]
            parse()
        }
        flush()
    }

    private func parse() {
        while registration != nil {
            if !sawStartup {
                guard input.count >= 8 else { return }
                let length = Int(Self.int32(input, 0))
                guard input.count >= length else { return }
                let code = Self.int32(input, 4)
                input.removeFirst(length)
                if code == 80_877_103 {
                    server.script(self, .sslRequest)
                } else {
                    sawStartup = true
                    server.script(self, .startup)
                }
            } else {
                guard input.count >= 5 else { return }
                let length = Int(Self.int32(input, 1))
                guard input.count >= 1 + length else { return }
                let type = input[0]
                let body = Array(input[5..<(1 + length)])
                input.removeFirst(1 + length)
                server.script(self, .message(type: type, body: body))
            }
        }
    }

    func send(_ bytes: [UInt8]) {
        outbox += bytes
        flush()
    }

    private func flush() {
        while registration != nil {
            if outbox.isEmpty, let refill { outbox = refill() }
            guard !outbox.isEmpty else { return }
            let count = outbox.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            bytesSent += count
            outbox.removeFirst(count)
        }
    }

    func close() {
        guard let registration else { return }
        server.loop.unregister(registration)
        self.registration = nil
        Glibc.close(fd)
    }

    static func int32(_ bytes: [UInt8], _ at: Int) -> Int32 {
        Int32(bitPattern: UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]))
    }
}

/// Backend messages for the fake server's scripts.
enum Backend {
    static func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        let length = UInt32(body.count + 4)
        return [type.asciiValue!, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
    }

    static func int32(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
    }

    static func cString(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    static let authenticationOK = message("R", int32(0))
    static let readyForQuery = message("Z", [UInt8(ascii: "I")])
    static let loggedIn = authenticationOK + readyForQuery
    static let parseComplete = message("1", [])
    static let bindComplete = message("2", [])
    static let noParameters = message("t", [0, 0])
    /// One int8 column named `n`.
    static let rowDescription = message("T", [0, 1] + cString("n") + int32(0) + [0, 0] + int32(20) + [0, 8] + int32(-1) + [0, 0])
    static func dataRow(_ value: Int64) -> [UInt8] {
        message("D", [0, 1] + int32(8) + (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) })
    }
}
