#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
import TestSupport
import Transports

/// One end of a stream on the loop, the way a user of a transport drives it: set up first
/// (when `establishes`, as a client does; else through its reads and writes, as the HTTP
/// server does), then read everything that comes and write `outbox` as the socket takes it.
final class LoopPeer: IOHandler {
    let loop: EventLoop
    let transport: any Transport
    private let establishes: Bool
    private var registration: IORegistration?
    private var interest: Interest = []
    private var buffer = [UInt8](repeating: 0, count: 16384)

    private(set) var established = false
    private(set) var setupFailure: TransportError?
    private(set) var ioFailure: Errno?
    private(set) var received: [UInt8] = []
    private(set) var ended = false
    private(set) var readCalls = 0
    var outbox: [UInt8] = [] { didSet { step() } }
    private(set) var sent = 0

    init(loop: EventLoop, transport: any Transport, establishes: Bool) throws {
        self.loop = loop
        self.transport = transport
        self.establishes = establishes
        interest = [.readable, .writable]
        registration = try loop.register(fd: transport.fd, interest: interest, handler: self)
    }

    var isDone: Bool { setupFailure != nil || ioFailure != nil }

    func handleIO(_ events: IOEvents) { step() }

    private func step() {
        guard !isDone, registration != nil else { return }
        if establishes && !established {
            do {
                established = try transport.establish()
            } catch {
                setupFailure = error
                stop()
                return
            }
            if !established {
                watch(Interest.readable.union(transport.neededInterest))
                return
            }
        }
        readAll()
        writeAll()
        guard !isDone else { return }
        watch(Interest.readable.union(sent < outbox.count ? .writable : []).union(transport.neededInterest))
    }

    private func readAll() {
        while !ended {
            readCalls += 1
            let result: Result<Int?, Errno> = buffer.withUnsafeMutableBytes { raw in
                do throws(Errno) { return .success(try transport.read(into: raw)) } catch { return .failure(error) }
            }
            switch result {
            case .success(nil): return
            case .success(0): ended = true
            case .success(let count?): received += buffer[0..<count]
            case .failure(let error):
                ioFailure = error
                stop()
                return
            }
        }
    }

    private func writeAll() {
        guard !isDone else { return }
        while sent < outbox.count {
            do {
                guard let count = try transport.write([outbox][...], skipping: sent) else { return }
                sent += count
            } catch {
                ioFailure = error
                stop()
                return
            }
        }
    }

    private func watch(_ wanted: Interest) {
        guard let registration, wanted != interest else { return }
        try? loop.modify(registration, interest: wanted)
        interest = wanted
    }

    private func stop() {
        if let registration { loop.unregister(registration) }
        registration = nil
    }

    /// Stops watching and closes the transport (and the socket).
    func close() {
        stop()
        transport.close()
    }
}

/// Notes the event that ends a connect (the socket becomes writable, or fails).
final class ConnectWatch: IOHandler {
    private(set) var fired = false

    func handleIO(_ events: IOEvents) { fired = true }
}

/// The loop's turns until `done` holds, 10 s at most.
func run(_ loop: EventLoop, until done: () -> Bool) {
    loop.run(until: done, within: .seconds(10))
}

/// A TCP connect to 127.0.0.1:`port` on the loop (`TCPConnect`): the socket, or the
/// connect's error.
func connectOnLoop(_ loop: EventLoop, port: UInt16) throws -> Result<Int32, Errno> {
    let fd: Int32
    do {
        fd = try TCPConnect.start(IPAddress("127.0.0.1")!, port: port)
    } catch {
        return .failure(error)
    }
    let watch = ConnectWatch()
    let registration = try loop.register(fd: fd, interest: .writable, handler: watch)
    run(loop) { watch.fired }
    loop.unregister(registration)
    #expect(watch.fired, "the connect did not end within 10 s")
    if let error = TCPConnect.result(fd) {
        Socket.close(fd)
        return .failure(error)
    }
    return .success(fd)
}

/// A connected pair of TCP sockets over loopback: the client's from `TCPConnect` on the
/// loop, the server's from `accept`.
func loopbackPair(_ loop: EventLoop) throws -> (client: Int32, server: Int32) {
    let listener = try Socket.listenTCP(address: [127, 0, 0, 1], port: 0)
    defer { Socket.close(listener) }
    let port = try #require(Socket.localPort(listener))
    let client = try connectOnLoop(loop, port: port).get()
    var accepted: Socket.Accepted?
    run(loop) {
        accepted = try? Socket.accept(listener)
        return accepted != nil
    }
    return (client, try #require(accepted).fd)
}

/// Bytes that differ at every position over a long run, so a lost or repeated piece shows.
func pattern(_ count: Int, seed: UInt32) -> [UInt8] {
    var state = seed | 1
    return (0..<count).map { _ in
        state = state &* 1_103_515_245 &+ 12345
        return UInt8(truncatingIfNeeded: state >> 16)
    }
}

/// A self-signed P-256 certificate for `localhost` and 127.0.0.1, made with `openssl`.
func selfSignedCertificate(in directory: TemporaryDirectory, _ name: String) throws -> (certificate: String, key: String) {
    let certificate = directory.file("\(name).pem")
    let key = directory.file("\(name)-key.pem")
    let status = try ChildProcess.run([
        "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ], output: directory.file("\(name).log"))
    try #require(status == 0)
    return (certificate, key)
}
