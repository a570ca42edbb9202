import EventLoop
import Logging

/// One client connection: reads requests, hands them to the handler in order, writes the
/// answers. Requests are answered one at a time: while one is parked or streaming, or while
/// the unsent answers are over `maxResponseBacklog`, later pipelined bytes wait (in
/// `pendingInput`, then unread in the socket). Runs on the loop thread; the loop keeps it
/// alive while it is registered.
final class HTTPConnection: IOHandler {
    enum State: Equatable {
        /// Waiting for, or reading, a request.
        case reading
        /// The handler is running for a request.
        case handling
        /// The request is parked; the client is watched for going away.
        case parked
        /// An event stream owns the connection.
        case streaming
        /// The last answer is being written; then the connection closes.
        case closingAfterWrite(linger: Bool)
        /// The answer is out and our side shut down; unread input is drained until the client
        /// closes or the linger time ends.
        case lingering
        case closed
    }

    private enum DeadlineKind { case idle, header, body, write, linger }

    unowned let server: HTTPServer
    let fd: Int32
    let peer: PeerAddress
    var registration: IORegistration?
    /// Position in the server's list, for O(1) removal.
    var serverIndex = -1
    private(set) var state: State = .reading

    private var parser: HTTPRequestParser
    private var head: HTTPRequestHead?
    private var continuePending = false
    /// Bytes read but not parsed yet, kept while a request is parked or streaming or the
    /// answers are over the bound; `pendingStart` of them are already parsed.
    private var pendingInput: [UInt8] = []
    private var pendingStart = 0
    private var output = OutputQueue()
    private var interest: Interest = .readable
    private var timer: LoopTimer!
    private var deadline: Instant?
    private var deadlineKind: DeadlineKind = .idle
    private var requestStart: Instant
    private var bodyDeadline: BodyDeadline?
    private var lastWriteProgress: Instant
    private var lingered = 0
    private var keepAlive = true
    private var requestVersion: HTTPVersion = .http11
    private var isHeadRequest = false
    private var parked: ParkedRequest?
    private var stream: EventStream?
    /// Takes up kept input on a later turn; made when first needed.
    private var resumeTimer: LoopTimer?
    private var requestsLeftInTurn = 0

    /// The requests one connection handles per turn of the loop. Without a cap, one read of
    /// 64 KiB can hold 600 pipelined requests, all handled before any other connection is
    /// served; with it, a client that pipelines waits its turn like everyone else.
    static let requestsPerTurn = 16

    init(server: HTTPServer, fd: Int32, peer: PeerAddress) {
        self.server = server
        self.fd = fd
        self.peer = peer
        parser = HTTPRequestParser(limits: server.configuration.parserLimits)
        requestStart = server.loop.now
        lastWriteProgress = server.loop.now
        timer = server.loop.makeTimer { [unowned self] in self.timerFired() }
    }

    // MARK: Events

    func handleIO(_ events: IOEvents) {
        // A hang-up or an error with answers waiting: the write reports it (and closes).
        if !output.isEmpty && (events.contains(.writable) || events.contains(.hangup) || events.contains(.error)) {
            flush()
        }
        switch state {
        case .reading:
            // Input kept while the answers were over the bound is taken up again here, on the
            // writable event that drained them (the loop's doing, not a write's callback).
            if !pendingInput.isEmpty || events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
                readAndProcess()
            }
        case .parked, .streaming:
            if events.contains(.peerClosed) || events.contains(.hangup) || events.contains(.error) {
                close()
                return
            }
        case .lingering:
            drainLinger()
            return
        case .closingAfterWrite:
            if events.contains(.hangup) || events.contains(.error) {
                close()
                return
            }
        case .handling, .closed:
            return
        }
        settle()
    }

    /// Answer bytes not sent yet (for tests of the bound).
    var queuedOutputBytes: Int { output.count }

    /// Over this, no more requests are handled and the socket is not read until the client
    /// reads: a client that sends without reading then fills its own socket buffers, not the
    /// server's memory. One answer may overshoot it (it is queued whole, by reference).
    private var isBacklogFull: Bool { output.count > server.configuration.maxResponseBacklog }

    /// Answers the input kept from before, then what the socket has, for one turn (at most
    /// `requestsPerTurn` requests and 16 reads), while the connection is reading and its
    /// answers are within the bound. What is left waits for a later turn (`settle`).
    private func readAndProcess() {
        let buffer = server.readBuffer
        var reads = 0
        requestsLeftInTurn = Self.requestsPerTurn
        while state == .reading && !isBacklogFull && requestsLeftInTurn > 0 {
            if !pendingInput.isEmpty {
                processPendingInput()
                flush()
                continue
            }
            guard reads < 16 else { break }
            reads += 1
            let count: Int?
            do {
                count = try Socket.read(fd, into: buffer)
            } catch {
                close()
                return
            }
            guard let count else { break }
            if count == 0 {
                endOfInput()
                return
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            let used = process(bytes)
            if used < count && keepsUnprocessedInput() {
                pendingInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
            }
            flush()
            // A short read drained the socket: asking again would only return EAGAIN (one
            // wasted system call per request). Level-triggered epoll reports what comes next.
            if count < buffer.count { break }
        }
    }

    private func processPendingInput() {
        let input = pendingInput
        let start = pendingStart
        pendingInput = []
        pendingStart = 0
        let used = input.withUnsafeBytes { process(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        if start + used < input.count && keepsUnprocessedInput() {
            // Kept as it is, with a new start: no copy however often the bound stops it.
            pendingInput = input
            pendingStart = start + used
        }
    }

    /// Parses `bytes` and dispatches each complete request, until the bytes run out, or a
    /// request parks, opens a stream or ends the connection, or the answers are over the
    /// bound, or the turn is over. Returns how many bytes it used.
    private func process(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while state == .reading && !isBacklogFull && requestsLeftInTurn > 0 {
            // A request's time starts when the server reads its first byte, which for input
            // kept behind the bound is now, not when the socket gave it.
            if parser.isIdle && head == nil {
                requestStart = server.loop.now
            }
            let readingBody = parser.isReadingBody
            let (event, consumed) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            if readingBody && consumed > 0 {
                bodyDeadline?.record(consumed, at: server.loop.now)
            }
            switch event {
            case .needMore:
                if continuePending {
                    continuePending = false
                    output.append(HTTPResponseHead.continueBytes)
                }
                return offset
            case .head(let newHead):
                head = newHead
                continuePending = newHead.expectsContinue
                bodyDeadline = BodyDeadline(start: server.loop.now)
            case .end(let body):
                continuePending = false
                bodyDeadline = nil
                guard let head else { return offset }
                self.head = nil
                dispatch(head, body: body)
            case .error(let error):
                refuse(status: error.status, reason: error.reason)
                return offset
            }
        }
        return offset
    }

    /// Whether input after the request that stopped `process` is kept for later. After the
    /// last answer it is not, but it is drained before the close, or the close resets.
    private func keepsUnprocessedInput() -> Bool {
        switch state {
        case .reading, .parked, .streaming:
            return true
        case .closingAfterWrite:
            state = .closingAfterWrite(linger: true)
            return false
        case .handling, .lingering, .closed:
            return false
        }
    }

    private func dispatch(_ head: HTTPRequestHead, body: [UInt8]) {
        state = .handling
        requestsLeftInTurn -= 1
        keepAlive = head.keepAlive && !server.isShuttingDown
        requestVersion = head.version
        isHeadRequest = head.method == .head
        let request = HTTPRequest(head: head, body: body, peer: peer, receivedAt: server.loop.now)
        server.handler.handle(request, HTTPResponder(connection: self, request: request))
        if state == .handling {
            Log.error("a handler returned without answering", ["method": head.method.name])
            respond(server.handler.refusal(status: 500, reason: "no answer"))
        }
    }

    /// The client closed its side. A request in progress can never complete.
    private func endOfInput() {
        if !output.isEmpty {
            state = .closingAfterWrite(linger: false)
            flush()
        } else {
            close()
        }
    }

    // MARK: Answers

    func respond(_ response: HTTPResponse) {
        guard state == .handling || state == .parked else { return }
        encode(response)
        state = keepAlive ? .reading : .closingAfterWrite(linger: false)
    }

    /// Answers a request the server refuses before (or instead of) the handler, and closes:
    /// after a framing error the rest of the input cannot be trusted. Unread input is drained
    /// for a while first, so the client reads the answer instead of a reset.
    func refuse(status: Int, reason: String) {
        Log.debug("refused a request", ["status": String(status), "reason": reason, "peer": peer.description])
        keepAlive = false
        requestVersion = .http11
        isHeadRequest = false
        encode(server.handler.refusal(status: status, reason: reason))
        state = .closingAfterWrite(linger: true)
    }

    private func encode(_ response: HTTPResponse) {
        // 1xx, 204 and 304 carry no body and no Content-Length (RFC 9110 8.6).
        let bodiless = response.status < 200 || response.status == 204 || response.status == 304
        let head = HTTPResponseHead(status: response.status, headers: response.headers)
        let body = bodiless || isHeadRequest ? [] : response.body
        // A small body is copied in after its head (one buffer for a run of small answers);
        // a large one is queued as the handler's own array, never copied.
        let copied = body.count < OutputQueue.ownChunkThreshold
        output.appendCopying(expected: 256 + (copied ? body.count : 0)) { buffer in
            head.write(into: &buffer, contentLength: bodiless ? nil : response.body.count,
                       keepAlive: keepAlive, requestVersion: requestVersion, date: server.currentDate())
            if copied { buffer.append(contentsOf: body) }
        }
        if !copied { output.append(body) }
    }

    func park(_ request: HTTPRequest, timeout: TimeSpan) -> ParkedRequest {
        precondition(state == .handling, "park outside of handle")
        let parked = ParkedRequest(request: request, connection: self)
        self.parked = parked
        state = .parked
        parked.arm(loop: server.loop, timeout: timeout)
        return parked
    }

    func finishParked(_ response: HTTPResponse) {
        guard state == .parked else { return }
        parked = nil
        respond(response)
        flush()
        settle()
    }

    /// Takes up kept input on a later turn of the loop: not from inside whatever code
    /// answered a parked request, and after the events of the other connections. A timer
    /// due now runs once the current batch of events is handled. Over the bound, the
    /// writable event resumes instead.
    private func resumeOnALaterTurn() {
        guard state == .reading, !pendingInput.isEmpty, !isBacklogFull else { return }
        let timer = resumeTimer ?? server.loop.makeTimer { [weak self] in self?.resume() }
        resumeTimer = timer
        if !timer.isScheduled {
            server.loop.reschedule(timer, at: server.loop.now)
        }
    }

    private func resume() {
        guard state == .reading else { return }
        readAndProcess()
        settle()
    }

    // MARK: Streams

    func openEventStream(pingInterval: TimeSpan, headers: [(name: String, value: String)]) -> EventStream {
        precondition(state == .handling, "openEventStream outside of handle")
        let stream = EventStream(connection: self, pingInterval: pingInterval)
        self.stream = stream
        state = .streaming
        // No Content-Length: the stream ends with the connection.
        keepAlive = false
        let fields = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")] + headers
        let head = HTTPResponseHead(status: 200, headers: fields)
        output.appendCopying(expected: 256) { buffer in
            head.write(into: &buffer, contentLength: nil, keepAlive: false, requestVersion: requestVersion, date: server.currentDate())
        }
        stream.start(loop: server.loop)
        return stream
    }

    func writeStream(_ bytes: [UInt8]) -> Bool {
        guard state == .streaming else { return false }
        output.append(bytes)
        flush()
        guard state == .streaming else { return false }
        if output.count > server.configuration.maxStreamBacklog {
            Log.info("cut off an event stream that reads too slowly", ["peer": peer.description])
            close()
            return false
        }
        settle()
        return true
    }

    func endStream() {
        guard state == .streaming else { return }
        let stream = self.stream
        self.stream = nil
        state = .closingAfterWrite(linger: false)
        stream?.closed()
        flush()
        settle()
    }

    // MARK: Writing

    private func flush() {
        if !output.isEmpty {
            do {
                if try output.write(to: fd) > 0 { lastWriteProgress = server.loop.now }
            } catch {
                close()
                return
            }
            guard output.isEmpty else { return }
        }
        if case .closingAfterWrite(let linger) = state {
            if linger {
                Socket.shutdownWrite(fd)
                state = .lingering
                lingered = 0
                requestStart = server.loop.now
            } else {
                close()
            }
        }
    }

    private func drainLinger() {
        let buffer = server.readBuffer
        while true {
            let result: Int?
            do {
                result = try Socket.read(fd, into: buffer)
            } catch {
                close()
                return
            }
            guard let count = result else { break }
            lingered += count
            if count == 0 || lingered > server.configuration.lingerMaxBytes {
                close()
                return
            }
        }
        settle()
    }

    // MARK: Interest and timers

    /// Makes the epoll interest and the deadline match the state.
    func settle() {
        let pendingOutput = !output.isEmpty
        var wanted: Interest
        switch state {
        case .reading:
            // Kept input is taken up before the socket is read again (see `handleIO`).
            wanted = isBacklogFull || !pendingInput.isEmpty ? [] : .readable
            resumeOnALaterTurn()
        case .parked, .streaming:
            wanted = .peerClosed
        case .closingAfterWrite:
            wanted = []
        case .lingering:
            wanted = .readable
        case .handling, .closed:
            return
        }
        if pendingOutput { wanted.insert(.writable) }
        if wanted != interest, let registration {
            do {
                try server.loop.modify(registration, interest: wanted)
                interest = wanted
            } catch {
                close()
                return
            }
        }
        updateDeadline(pendingOutput: pendingOutput)
    }

    private func updateDeadline(pendingOutput: Bool) {
        let config = server.configuration
        let now = server.loop.now
        var kind: DeadlineKind
        var due: Instant?
        switch state {
        case .reading:
            if parser.isReadingBody, let body = bodyDeadline {
                (kind, due) = (.body, body.due(pause: config.bodyTimeout, minimumRate: config.bodyMinimumRate))
            } else if !parser.isIdle || head != nil {
                (kind, due) = (.header, requestStart + config.headerTimeout)
            } else {
                (kind, due) = (.idle, now + config.idleTimeout)
            }
        case .lingering:
            (kind, due) = (.linger, requestStart + config.lingerTimeout)
        default:
            (kind, due) = (.write, nil)
        }
        if pendingOutput {
            let writeDue = lastWriteProgress + config.writeTimeout
            if due == nil || writeDue < due! { (kind, due) = (.write, writeDue) }
        }
        deadline = due
        deadlineKind = kind
        guard let due else { return }
        // Moving a deadline later costs nothing: the timer fires at the old time and is
        // re-armed then. Only an earlier deadline touches the timer heap.
        if !timer.isScheduled || timer.deadline > due {
            server.loop.reschedule(timer, at: due)
        }
    }

    private func timerFired() {
        guard let deadline, state != .closed else { return }
        if server.loop.now < deadline {
            server.loop.reschedule(timer, at: deadline)
            return
        }
        switch deadlineKind {
        case .idle, .write, .linger:
            close()
        case .header, .body:
            refuse(status: 408, reason: deadlineKind == .header ? "headers too slow" : "body too slow")
            flush()
            settle()
        }
    }

    // MARK: Shutdown and close

    /// The server stops: idle connections close now, a parked request gets its answer, a
    /// stream ends; a request being read may still finish (and its answer closes).
    func beginShutdown() {
        keepAlive = false
        switch state {
        case .reading:
            if parser.isIdle && head == nil && output.isEmpty && pendingInput.isEmpty {
                close()
            }
        case .parked:
            parked?.expire()
        case .streaming:
            endStream()
        default:
            break
        }
    }

    func close() {
        guard state != .closed else { return }
        state = .closed
        server.loop.cancel(timer)
        if let resumeTimer { server.loop.cancel(resumeTimer) }
        if let registration {
            server.loop.unregister(registration)
            self.registration = nil
        }
        Socket.close(fd)
        output.removeAll()
        pendingInput = []
        let parked = self.parked
        let stream = self.stream
        self.parked = nil
        self.stream = nil
        parked?.cancel()
        stream?.closed()
        server.connectionClosed(self)
    }
}
