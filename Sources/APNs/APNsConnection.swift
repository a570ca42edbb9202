#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Logging
import TLS
import Transports

/// One push on its way: the request, who waits for its result, and how many times it went.
final class APNsAttempt {
    let request: APNsRequest
    let completion: (APNsResult) -> Void
    /// Tries that reached a server or failed for want of one (`APNsRetryPolicy.maxAttempts`).
    var tries = 0
    /// Sends again of a request a server never processed (GOAWAY, refused stream).
    var requeues = 0
    /// Provider tokens renewed for this push after `ExpiredProviderToken`.
    var renewals = 0
    /// The provider token of the latest try.
    var providerToken: String?

    init(request: APNsRequest, completion: @escaping (APNsResult) -> Void) {
        self.request = request
        self.completion = completion
    }
}

/// How one try ended, as the connection saw it.
enum APNsOutcome: Equatable {
    /// The server answered.
    case response(status: Int, body: [UInt8])
    /// The server did not process it (GOAWAY above it, REFUSED_STREAM, or the connection
    /// closed before it was sent): send it again, on a new connection, at once.
    case notProcessed
    /// No answer: the connection could not be made, broke, or the answer took too long.
    case failed(String)
}

/// One HTTP/2 connection to one APNs service, on the loop: a `TransportDialer` (the name
/// looked up off the loop, TCP, TLS with ALPN `h2`, or the plain socket for an `http://` URL),
/// then requests
/// as streams, as many at once as the server's SETTINGS_MAX_CONCURRENT_STREAMS allows; the
/// rest wait in order. A PING goes out when it is idle. After GOAWAY it takes no new request
/// and closes when its last stream ends; the client opens another.
final class APNsConnection: IOHandler, HTTP2SessionDelegate {
    enum State: Equatable { case idle, dialing, ready, closed }

    private let loop: EventLoop
    let endpoint: APNsEndpoint
    private let tlsContext: TLSClientContext?
    private let configuration: APNsConfiguration
    private let providerToken: () -> String?
    /// Where each try's outcome goes (the client).
    private let report: (APNsAttempt, APNsOutcome) -> Void

    private(set) var state = State.idle
    /// GOAWAY came (or was sent): no new streams.
    private(set) var goingAway = false
    private var settingsReceived = false
    /// The lookup, the connect and the TLS handshake, until the transport is set up.
    private var dialer: TransportDialer?
    private var registration: IORegistration?
    private var interest: Interest = []
    private var transport: (any Transport)?
    private var http2: HTTP2Session?

    private var waiting: [APNsAttempt] = []
    private var streams: [Int32: Stream] = [:]
    /// Streams that ended during the current `receive`, handled once it returns.
    private var ended: [(APNsAttempt, APNsOutcome)] = []
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var readBuffer = [UInt8](repeating: 0, count: 16384)

    private var connectTimer: LoopTimer?
    private var idleTimer: LoopTimer?
    private var pingTimer: LoopTimer?

    private final class Stream {
        let attempt: APNsAttempt
        var status: Int?
        var body: [UInt8] = []
        var timer: LoopTimer?
        var timedOut = false

        init(attempt: APNsAttempt) { self.attempt = attempt }
    }

    /// Cap on a response body kept: APNs sends a small JSON object.
    private static let maxBody = 16384

    init(
        loop: EventLoop, endpoint: APNsEndpoint, tlsContext: TLSClientContext?, configuration: APNsConfiguration,
        providerToken: @escaping () -> String?, report: @escaping (APNsAttempt, APNsOutcome) -> Void
    ) {
        self.loop = loop
        self.endpoint = endpoint
        self.tlsContext = tlsContext
        self.configuration = configuration
        self.providerToken = providerToken
        self.report = report
    }

    /// Whether new requests may go here.
    var isUsable: Bool { state != .closed && !goingAway }

    // MARK: Requests

    func enqueue(_ attempt: APNsAttempt) {
        precondition(isUsable)
        waiting.append(attempt)
        switch state {
        case .idle: start()
        case .ready: startStreams()
        default: break
        }
    }

    /// Starts waiting requests while the server's stream limit allows.
    private func startStreams() {
        guard state == .ready, settingsReceived, !goingAway, let http2 else { return }
        let limit = max(1, min(http2.remoteMaxConcurrentStreams, 1000))
        var started = false
        while streams.count < limit, !waiting.isEmpty {
            let attempt = waiting.removeFirst()
            guard let token = providerToken() else {
                ended.append((attempt, .failed("cannot sign the provider token")))
                continue
            }
            attempt.providerToken = token
            let headers = APNsHeaders.build(
                for: attempt.request, authority: endpoint.authority, scheme: endpoint.usesTLS ? "https" : "http", providerToken: token)
            guard let id = http2.submitRequest(headers: headers, body: attempt.request.payload) else {
                // No stream ids left on this connection: it must be replaced.
                waiting.insert(attempt, at: 0)
                goAway()
                break
            }
            let stream = Stream(attempt: attempt)
            stream.timer = loop.schedule(after: configuration.requestTimeout) { [weak self, weak stream] in
                guard let self, let stream else { return }
                stream.timedOut = true
                self.http2?.cancel(stream: id)
                // Sending the RST_STREAM closes the stream: its outcome is reported here.
                self.flush()
                self.handleEnded()
            }
            streams[id] = stream
            started = true
        }
        if started {
            cancelIdleTimer()
            flush()
        }
        handleEnded()
    }

    // MARK: Connecting

    private func start() {
        state = .dialing
        connectTimer = loop.schedule(after: configuration.connectTimeout) { [weak self] in
            guard let self, self.state != .closed, !self.settingsReceived else { return }
            self.fail("no connection to \(self.endpoint.authority) within \(self.configuration.connectTimeout.milliseconds) ms")
        }
        let dialer = TransportDialer(host: endpoint.host, port: endpoint.port, label: endpoint.authority,
                                     tls: tlsContext, loop: loop) { [weak self] result in
            guard let self, self.state == .dialing else { return }
            switch result {
            case .success(let transport): self.established(transport)
            case .failure(let failure): self.fail(failure.description)
            }
        }
        self.dialer = dialer
        dialer.start()
    }

    private func established(_ transport: any Transport) {
        self.transport = transport
        do {
            registration = try loop.register(fd: transport.fd, interest: .readable, handler: self)
            interest = .readable
        } catch {
            fail("epoll: \(error)")
            return
        }
        if tlsContext != nil && transport.applicationProtocol != "h2" {
            fail("\(endpoint.authority) does not speak HTTP/2 (ALPN: \(transport.applicationProtocol ?? "none"))")
            return
        }
        startHTTP2()
    }

    private func startHTTP2() {
        do {
            http2 = try HTTP2Session(delegate: self)
        } catch {
            fail(error.description)
            return
        }
        state = .ready
        setInterest(.readable)
        flush()
        // Requests wait for the server's SETTINGS, which carry its stream limit.
        readAvailable()
    }

    // MARK: I/O

    func handleIO(_ events: IOEvents) {
        switch state {
        case .ready:
            // Read on every event: TLS may wait for a writable socket to go on reading, and
            // a read with nothing there only says "not now".
            readAvailable()
            if state == .ready && events.contains(.writable) {
                flush()
            }
        case .idle, .dialing, .closed:
            break
        }
    }

    private func readAvailable() {
        while state == .ready, let http2, let transport {
            let result: Result<Int?, Errno> = readBuffer.withUnsafeMutableBytes { buffer in
                do throws(Errno) {
                    return .success(try transport.read(into: buffer))
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(nil):
                setInterest(interest.union(transport.neededInterest))
                return
            case .success(0):
                fail("\(endpoint.authority) closed the connection")
                return
            case .success(let count?):
                let accepted = readBuffer.withUnsafeBytes { http2.receive(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                if !accepted {
                    fail("HTTP/2 protocol error from \(endpoint.authority)")
                    return
                }
                handleEnded()
                if state != .ready { return }
                startStreams()
                flush()
            case .failure(let error):
                fail("reading from \(endpoint.authority): \(error)")
                return
            }
        }
    }

    /// Sends what nghttp2 has queued, as far as the socket takes it.
    private func flush() {
        guard state == .ready, let http2 else { return }
        if outboundOffset == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
        }
        guard http2.takeOutput(into: &outbound) else {
            fail("HTTP/2 session error")
            return
        }
        while outboundOffset < outbound.count, let transport {
            let written: Int?
            do {
                written = try transport.write([outbound][...], skipping: outboundOffset)
            } catch {
                fail("writing to \(endpoint.authority): \(error)")
                return
            }
            guard let written else {
                setInterest([.readable, .writable])
                return
            }
            outboundOffset += written
        }
        setInterest(Interest.readable.union(transport?.neededInterest ?? []))
        if goingAway && streams.isEmpty && !http2.wantsIO {
            close(reason: "GOAWAY")
        }
    }

    private func setInterest(_ wanted: Interest) {
        guard let registration, wanted != interest else { return }
        do {
            try loop.modify(registration, interest: wanted)
            interest = wanted
        } catch {
            fail("epoll: \(error)")
        }
    }

    // MARK: HTTP/2 events (inside `receive`: record, act after)

    func http2SettingsReceived() {
        guard !settingsReceived else { return }
        settingsReceived = true
        if let connectTimer { loop.cancel(connectTimer) }
        connectTimer = nil
        if streams.isEmpty && waiting.isEmpty { armIdleTimer() }
    }

    func http2GoawayReceived(lastStreamID: Int32, errorCode: UInt32) {
        Log.info("APNs connection going away", ["server": endpoint.authority, "last_stream_id": String(lastStreamID), "code": String(errorCode)])
        goingAway = true
        // Not yet sent: they go to the next connection.
        for attempt in waiting { ended.append((attempt, .notProcessed)) }
        waiting.removeAll()
    }

    func http2PingAcknowledged() {
        if let pingTimer { loop.cancel(pingTimer) }
        pingTimer = nil
        if streams.isEmpty { armIdleTimer() }
    }

    func http2Status(_ status: Int, stream: Int32) {
        streams[stream]?.status = status
    }

    func http2Data(_ bytes: UnsafeBufferPointer<UInt8>, stream: Int32) {
        guard let entry = streams[stream], entry.body.count + bytes.count <= Self.maxBody else { return }
        entry.body.append(contentsOf: bytes)
    }

    func http2StreamClosed(_ id: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        if let timer = stream.timer { loop.cancel(timer) }
        let outcome: APNsOutcome
        if errorCode == 0, let status = stream.status {
            outcome = .response(status: status, body: stream.body)
        } else if stream.timedOut {
            outcome = .failed("no answer from \(endpoint.authority) within \(configuration.requestTimeout.milliseconds) ms")
        } else if errorCode == HTTP2Session.refusedStream && stream.status == nil {
            outcome = .notProcessed
        } else {
            outcome = .failed("\(endpoint.authority) reset the stream (HTTP/2 error \(errorCode))")
        }
        ended.append((stream.attempt, outcome))
        if streams.isEmpty && waiting.isEmpty && !goingAway { armIdleTimer() }
    }

    /// Reports the tries that ended; the client may enqueue new ones meanwhile.
    private func handleEnded() {
        while !ended.isEmpty {
            let batch = ended
            ended.removeAll()
            for (attempt, outcome) in batch { report(attempt, outcome) }
        }
        if goingAway && streams.isEmpty && state == .ready {
            close(reason: "GOAWAY")
        }
    }

    // MARK: Idle PING

    private func armIdleTimer() {
        guard state == .ready else { return }
        if let idleTimer {
            loop.reschedule(idleTimer, at: loop.now + configuration.idlePingInterval)
        } else {
            idleTimer = loop.schedule(after: configuration.idlePingInterval) { [weak self] in self?.idle() }
        }
    }

    private func cancelIdleTimer() {
        if let idleTimer { loop.cancel(idleTimer) }
    }

    private func idle() {
        guard state == .ready, streams.isEmpty, pingTimer == nil, let http2 else { return }
        http2.submitPing()
        pingTimer = loop.schedule(after: configuration.pingTimeout) { [weak self] in
            guard let self, self.state == .ready else { return }
            self.pingTimer = nil
            Log.warn("APNs connection did not answer a PING; closing it", ["server": self.endpoint.authority])
            self.close(reason: "PING unanswered")
        }
        flush()
    }

    // MARK: Closing

    /// Ends this connection with a GOAWAY of its own (no stream ids left): open streams finish.
    private func goAway() {
        goingAway = true
        http2?.terminate()
        for attempt in waiting { ended.append((attempt, .notProcessed)) }
        waiting.removeAll()
    }

    /// The connection failed: every try on it fails with `reason`, except the ones a server
    /// that was reached never saw, which go to the next connection.
    private func fail(_ reason: String) {
        close(reason: reason)
    }

    private func close(reason: String) {
        guard state != .closed else { return }
        let wasReady = state == .ready && settingsReceived
        state = .closed
        for timer in [connectTimer, idleTimer, pingTimer].compactMap({ $0 }) { loop.cancel(timer) }
        connectTimer = nil
        idleTimer = nil
        pingTimer = nil
        transport?.shutdownWrite()
        dropSocket()
        let open = streams.sorted { $0.key < $1.key }.map(\.value)
        streams.removeAll()
        for stream in open {
            if let timer = stream.timer { loop.cancel(timer) }
            ended.append((stream.attempt, .failed(reason)))
        }
        for attempt in waiting {
            ended.append((attempt, wasReady ? .notProcessed : .failed(reason)))
        }
        waiting.removeAll()
        http2 = nil
        if reason != "GOAWAY" && reason != "PING unanswered" {
            Log.warn("APNs connection closed", ["server": endpoint.authority, "reason": reason])
        }
        handleEnded()
    }

    private func dropSocket() {
        dialer?.cancel()
        dialer = nil
        if let registration { loop.unregister(registration) }
        registration = nil
        interest = []
        transport?.close()
        transport = nil
    }

    /// Closes at once; every try on it is reported as failed (the client is shutting down).
    func shutdown() {
        close(reason: "the APNs client is shutting down")
    }
}
