#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
import TestSupport
import TLS
import Transports

/// A server of the test's own on the client's loop, over loopback TCP and, given a context,
/// TLS (the server side of `TLSTransport`, as HTTPS does): it reads each request whole, notes
/// it, and plays what `script` gives for it byte for byte, with pauses, so a test decides
/// how an answer is cut into reads, how slowly it comes, and whether it ever ends.
final class ScriptedServer: IOHandler {
    enum Step {
        case send(String)
        case bytes([UInt8])
        /// The same bytes `times` times, made as the socket takes them (megabytes are never
        /// held at once).
        case repeated([UInt8], times: Int)
        case pause(TimeSpan)
        /// Closes the connection; without it, the connection stays open once the steps end.
        case close
    }

    let loop: EventLoop
    let port: UInt16
    private let tls: TLSServerContext?
    private let script: (_ request: String) -> [Step]
    private let listener: Int32
    private var registration: IORegistration?
    private(set) var connections: [ServerConnection] = []

    init(loop: EventLoop, tls: TLSServerContext?, script: @escaping (_ request: String) -> [Step]) throws {
        self.loop = loop
        self.tls = tls
        self.script = script
        listener = try Socket.listenTCP(address: [127, 0, 0, 1], port: 0)
        port = try #require(Socket.localPort(listener))
        registration = try loop.register(fd: listener, interest: .readable, handler: self)
    }

    /// The requests read so far, in order, each its head and body as text.
    var requests: [String] { connections.compactMap(\.request) }

    func handleIO(_ events: IOEvents) {
        while let accepted = try? Socket.accept(listener) {
            do {
                let transport: any Transport = try tls.map { try TLSTransport(server: $0, fd: accepted.fd) } ?? PlainTransport(fd: accepted.fd)
                connections.append(try ServerConnection(loop: loop, transport: transport, script: script))
            } catch {
                Socket.close(accepted.fd)
            }
        }
    }

    /// Whether a connection waits to be taken, without taking it.
    var hasPendingConnection: Bool {
        var poll = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&poll, 1, 0) == 1
    }

    func stop() {
        if let registration { loop.unregister(registration) }
        registration = nil
        Socket.close(listener)
        connections.forEach { $0.close() }
    }
}

/// One accepted connection of `ScriptedServer`.
final class ServerConnection: IOHandler {
    private let loop: EventLoop
    private let transport: any Transport
    private let script: (String) -> [ScriptedServer.Step]
    private var registration: IORegistration?
    private var interest: Interest = []
    private var input: [UInt8] = []
    private var steps: [ScriptedServer.Step] = []
    private var current: [UInt8] = []
    private var currentSent = 0
    private var paused = false
    private var buffer = [UInt8](repeating: 0, count: 16384)

    private(set) var request: String?
    /// Bytes of the answer the socket took.
    private(set) var sent = 0
    /// The client closed (or reset) its side.
    private(set) var peerEnded = false
    private(set) var closed = false

    init(loop: EventLoop, transport: any Transport, script: @escaping (String) -> [ScriptedServer.Step]) throws {
        self.loop = loop
        self.transport = transport
        self.script = script
        interest = .readable
        registration = try loop.register(fd: transport.fd, interest: interest, handler: self)
    }

    func handleIO(_ events: IOEvents) { step() }

    private func step() {
        guard !closed else { return }
        readAll()
        pump()
        guard !closed else { return }
        let wanted = (peerEnded ? Interest() : .readable)
            .union(currentSent < current.count ? .writable : []).union(transport.neededInterest)
        if wanted != interest, let registration {
            try? loop.modify(registration, interest: wanted)
            interest = wanted
        }
    }

    private func readAll() {
        while !peerEnded {
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { try transport.read(into: $0) }
            } catch {
                peerEnded = true
                return
            }
            guard let count else { return }
            if count == 0 {
                peerEnded = true
                return
            }
            if request == nil {
                input += buffer[0..<count]
                takeRequest()
            }
        }
    }

    /// The head up to its blank line, then as many bytes as its Content-Length says.
    private func takeRequest() {
        guard input.count >= 4, let end = (0...(input.count - 4)).first(where: { input[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else {
            return
        }
        let head = String(decoding: input[0..<end], as: UTF8.self)
        let prefix = "content-length: "
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(prefix) }
            .flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
        guard input.count >= end + 4 + length else { return }
        request = String(decoding: input[0..<(end + 4 + length)], as: UTF8.self)
        steps = script(request!)
    }

    private func pump() {
        while !paused && !closed {
            if currentSent < current.count {
                do {
                    guard let count = try transport.write([current][...], skipping: currentSent) else { return }
                    currentSent += count
                    sent += count
                } catch {
                    peerEnded = true
                    close()
                }
                continue
            }
            guard !steps.isEmpty else { return }
            switch steps.removeFirst() {
            case .send(let text): (current, currentSent) = (Array(text.utf8), 0)
            case .bytes(let bytes): (current, currentSent) = (bytes, 0)
            case .repeated(let bytes, let times):
                (current, currentSent) = (bytes, 0)
                if times > 1 { steps.insert(.repeated(bytes, times: times - 1), at: 0) }
            case .pause(let span):
                paused = true
                loop.schedule(after: span) { [weak self] in
                    self?.paused = false
                    self?.step()
                }
            case .close:
                close()
            }
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        if let registration { loop.unregister(registration) }
        registration = nil
        transport.close()
    }
}
