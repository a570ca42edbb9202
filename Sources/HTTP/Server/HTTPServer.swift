#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Logging
import Transports

/// The HTTP/1.1 server on the loop: listening sockets, the open connections, the cap on
/// them, and the graceful stop.
public final class HTTPServer {
    public let loop: EventLoop
    public let configuration: HTTPServerConfiguration
    public let handler: any HTTPHandler
    /// Makes each accepted connection's transport: nil serves plain HTTP on the socket, a
    /// TLS factory HTTPS. Replaced on a certificate reload; open connections keep theirs.
    public var transportFactory: (any TransportFactory)?
    /// One read buffer for every connection: a connection keeps only what it must
    /// (a partial head inside its parser, bytes behind a parked request), so 10,000 idle
    /// keep-alive connections hold almost nothing.
    let readBuffer: UnsafeMutableRawBufferPointer
    private var listeners: [Listener] = []
    private(set) var connections: [HTTPConnection] = []
    private var date: HTTPDate
    public private(set) var isShuttingDown = false
    private var shutdownCompletion: (() -> Void)?
    private var acceptPausedUntil: Instant?
    /// Connections whose answers leave at the end of this loop turn (`HTTPConnection.
    /// flushAtEndOfTurn`).
    private var endOfTurnFlushes: [HTTPConnection] = []

    public init(loop: EventLoop, configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.loop = loop
        self.configuration = configuration
        self.handler = handler
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        date = HTTPDate(unixSeconds: Int64(time(nil)))
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Serves connections from a listening socket (made here, or passed by systemd).
    public func listen(on fd: Int32) throws(Errno) {
        try Socket.setNonBlocking(fd)
        let listener = Listener(server: self, fd: fd)
        listener.registration = try loop.register(fd: fd, interest: .readable, handler: listener)
        listeners.append(listener)
    }

    public var connectionCount: Int { connections.count }

    func flushAtEndOfTurn(_ connection: HTTPConnection) {
        if endOfTurnFlushes.isEmpty {
            loop.atEndOfTurn(.flush, flushWork)
        }
        endOfTurnFlushes.append(connection)
    }

    /// Made once: a closure per turn would be an allocation per turn.
    private lazy var flushWork: () -> Void = { [weak self] in self?.flushEndOfTurn() }

    private func flushEndOfTurn() {
        let due = endOfTurnFlushes
        endOfTurnFlushes.removeAll(keepingCapacity: true)
        for connection in due { connection.flushScheduledOutput() }
    }

    func currentDate() -> HTTPDate {
        date.update(unixSeconds: Int64(time(nil)))
        return date
    }

    // MARK: Accepting

    fileprivate func acceptAll(from listener: Listener) {
        // A bounded batch per wake-up keeps one busy listener from starving the others.
        for _ in 0..<64 {
            let accepted: Socket.Accepted?
            do {
                accepted = try Socket.accept(listener.fd)
            } catch {
                pauseAccepting(error)
                return
            }
            guard let accepted else { return }
            adopt(accepted)
        }
    }

    private func adopt(_ accepted: Socket.Accepted) {
        if case .ip = accepted.peer { Socket.setNoDelay(accepted.fd) }
        let transport: any Transport
        if let transportFactory {
            do {
                transport = try transportFactory.makeTransport(fd: accepted.fd)
            } catch {
                Log.warn("could not set up a new connection's transport", ["error": error.description])
                Socket.close(accepted.fd)
                return
            }
        } else {
            transport = PlainTransport(fd: accepted.fd)
        }
        let connection = HTTPConnection(server: self, transport: transport, peer: accepted.peer)
        do {
            connection.registration = try loop.register(fd: accepted.fd, interest: .readable, handler: connection)
        } catch {
            Log.warn("could not watch a new connection", ["error": error.description])
            transport.close()
            return
        }
        connection.serverIndex = connections.count
        connections.append(connection)
        if connections.count > configuration.maxConnections || isShuttingDown {
            connection.refuse(status: 503, reason: isShuttingDown ? "stopping" : "too many connections")
        }
        connection.settle()
    }

    /// Out of descriptors (or another accept failure): stop accepting for a moment instead
    /// of spinning on a listener that stays readable.
    private func pauseAccepting(_ error: Errno) {
        Log.warn("accept failed; pausing new connections for 100 ms", ["error": error.description])
        for listener in listeners {
            if let registration = listener.registration { try? loop.modify(registration, interest: []) }
        }
        loop.schedule(after: .milliseconds(100)) { [weak self] in
            guard let self, !self.isShuttingDown else { return }
            for listener in self.listeners {
                if let registration = listener.registration { try? self.loop.modify(registration, interest: .readable) }
            }
        }
    }

    // MARK: Connections

    func connectionClosed(_ connection: HTTPConnection) {
        let index = connection.serverIndex
        guard index >= 0, index < connections.count, connections[index] === connection else { return }
        let last = connections.removeLast()
        if index < connections.count {
            connections[index] = last
            last.serverIndex = index
        }
        connection.serverIndex = -1
        if isShuttingDown && connections.isEmpty {
            finishShutdown()
        }
    }

    // MARK: Stopping

    /// Stops accepting, ends idle connections, answers parked requests, ends streams, lets
    /// requests being read finish, and calls `completion` once every connection is closed,
    /// or when `timeout` has passed (then the rest are closed).
    public func shutdown(timeout: TimeSpan, completion: @escaping () -> Void) {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        shutdownCompletion = completion
        for listener in listeners {
            if let registration = listener.registration { loop.unregister(registration) }
            Socket.close(listener.fd)
        }
        listeners = []
        for connection in connections {
            connection.beginShutdown()
            connection.settle()
        }
        if connections.isEmpty {
            finishShutdown()
            return
        }
        loop.schedule(after: timeout) { [weak self] in
            guard let self, self.shutdownCompletion != nil else { return }
            Log.warn("closing connections still open at the end of the stop timeout", ["count": String(self.connections.count)])
            for connection in self.connections { connection.close() }
            self.finishShutdown()
        }
    }

    private func finishShutdown() {
        let completion = shutdownCompletion
        shutdownCompletion = nil
        completion?()
    }
}

private final class Listener: IOHandler {
    unowned let server: HTTPServer
    let fd: Int32
    var registration: IORegistration?

    init(server: HTTPServer, fd: Int32) {
        self.server = server
        self.fd = fd
    }

    func handleIO(_ events: IOEvents) {
        server.acceptAll(from: self)
    }
}
