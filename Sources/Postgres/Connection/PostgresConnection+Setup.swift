import EventLoop
import Logging
import TLS
import Transports

/// Setting the connection up: dial, `SSLRequest` and TLS, the start-up message, then the
/// authentication exchange until the first ReadyForQuery, all within `connectTimeout`.
extension PostgresConnection {
    func start(timeout: TimeSpan, completion: @escaping (Result<PostgresConnection, PostgresError>) -> Void) {
        connectCompletion = completion
        // The timer holds the connection until it is set up or given up.
        let deadline = loop.schedule(after: timeout) { [self] in
            fail(PostgresError(.timedOut, "no connection to \(settings.endpoint) within \(timeout.milliseconds) ms"))
        }
        timer = deadline
        switch settings.endpoint {
        case .tcp(let host, let port):
            let made = TransportDialer(host: host, port: port, label: settings.endpoint.description, tls: nil, loop: loop) { [self] result in
                dialer = nil
                switch result {
                case .success(let transport): connected(transport)
                case .failure(let failure): fail(PostgresError(.connectionLost, failure.description))
                }
            }
            dialer = made
            made.start()
        case .unix:
            let path = settings.endpoint.socketPath ?? ""
            do {
                let fd = try UnixConnect.start(path: path)
                transport = PlainTransport(fd: fd)
                try watch(fd, .writable)
            } catch {
                // The result comes on a later turn, never inside the caller's `connect`.
                loop.runSoon { [self] in fail(PostgresError(.connectionLost, "cannot connect to \(path): \(error)")) }
            }
        }
    }

    /// The Unix socket's connect ended (it is writable).
    func unixConnected() {
        guard let transport else { return }
        if let error = TCPConnect.result(transport.fd) {
            fail(PostgresError(.connectionLost, "cannot connect to \(settings.endpoint): \(error)"))
            return
        }
        beginStartup()
    }

    /// TCP is up (the dialer hands the socket over unregistered).
    private func connected(_ plain: any Transport) {
        guard phase == .dialing else {
            plain.close()
            return
        }
        transport = plain
        if let keepalive = settings.keepalive {
            // Refused only by a kernel without TCP keepalive: the connection works without it.
            try? Socket.setKeepalive(plain.fd, idle: keepalive.idleSeconds, interval: keepalive.intervalSeconds, count: keepalive.count)
        }
        do {
            try watch(plain.fd, .readable)
        } catch {
            fail(PostgresError(.connectionLost, "epoll: \(error)"))
            return
        }
        guard settings.sslMode != .disable else {
            beginStartup()
            return
        }
        phase = .negotiatingTLS
        var writer = MessageWriter()
        writer.sslRequest()
        send(writer.bytes)
    }

    /// The one byte that answers `SSLRequest`. Read alone: anything the server (or someone
    /// between) sent after it must not be taken as TLS's or the protocol's, so it stays in the
    /// socket for TLS to refuse (CVE-2021-23222).
    func readTLSAnswer() {
        guard let transport else { return }
        let answer: UInt8
        switch readOneByte() {
        case .byte(let byte): answer = byte
        case .notYet: return
        case .ended:
            fail(PostgresError(.connectionLost, "the server closed the connection instead of answering SSLRequest"))
            return
        case .failed(let error):
            fail(PostgresError(.connectionLost, "reading the answer to SSLRequest: \(error)"))
            return
        }
        switch answer {
        case UInt8(ascii: "S"):
            guard let tlsContext, let name = settings.tlsServerName else {
                fail(PostgresError(.tls, "no TLS context"))
                return
            }
            do {
                self.transport = try TLSTransport(client: tlsContext, fd: transport.fd, serverName: name)
            } catch {
                fail(PostgresError(.tls, error.description))
                return
            }
            phase = .handshaking
            handshake()
        case UInt8(ascii: "N"):
            guard !settings.sslMode.requiresTLS else {
                fail(PostgresError(.tls, "the server offers no TLS, and sslmode=\(settings.sslMode.rawValue) requires it"))
                return
            }
            beginStartup()
        default:
            fail(PostgresError(.protocolViolation, "the server answered SSLRequest with \(BackendMessage.name(answer))"))
        }
    }

    func handshake() {
        guard let transport else { return }
        do {
            guard try transport.establish() else {
                updateInterest()
                return
            }
        } catch {
            fail(PostgresError(.tls, error.description))
            return
        }
        beginStartup()
    }

    private func beginStartup() {
        phase = .authenticating
        authenticator = Authenticator(user: settings.user, password: settings.password, isTLS: isTLS,
                                      serverEndPointHash: (transport as? TLSTransport)?.serverEndPointHash,
                                      maxIterations: limits.maxSCRAMIterations)
        var writer = MessageWriter()
        writer.startup([
            ("user", settings.user), ("database", settings.database), ("application_name", settings.applicationName),
            ("client_encoding", "UTF8"),
        ])
        send(writer.bytes)
    }

    /// A message before the first ReadyForQuery.
    func receiveDuringStartup(_ message: BackendMessage) throws(PostgresError) {
        switch message {
        case .authentication(let request):
            guard var authenticator else { throw PostgresError(.protocolViolation, "authentication after it ended") }
            let step = try authenticator.step(request)
            self.authenticator = authenticator
            switch step {
            case .send(let bytes): if !bytes.isEmpty { send(bytes) }
            case .done: self.authenticator = nil
            }
        case .error(let notice):
            var error = notice.error
            if notice.sqlState.hasPrefix("28") {
                error = PostgresError(.authentication, error.message, sqlState: error.sqlState)
            }
            throw error
        case .parameterStatus(let name, let value):
            serverParameters[name] = value
        case .backendKeyData(let processID, _):
            self.processID = processID
        case .notice, .negotiateProtocolVersion:
            break
        case .readyForQuery:
            guard authenticator == nil else { throw PostgresError(.protocolViolation, "ReadyForQuery before authentication ended") }
            phase = .ready
            // The set-up's timer ends here; from now on the timer follows the batches.
            if let timer { loop.cancel(timer) }
            timer = nil
            armTimer()
            let completion = connectCompletion
            connectCompletion = nil
            Log.debug("PostgreSQL connection ready", ["server": settings.endpoint.description, "tls": isTLS ? "yes" : "no"])
            completion?(.success(self))
        default:
            throw PostgresError(.protocolViolation, "an unexpected message during start-up")
        }
    }
}
