import EventLoop
import Logging

/// One client connection: reads requests, hands them to the handler in order, writes the
/// answers. Requests are answered one at a time: while one is parked or streaming, later
/// pipelined bytes wait unread. Runs on the loop thread; the loop keeps it alive while it is
/// registered.
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
    /// Bytes read but not parsed yet, kept while a request is parked or streaming.
    private var pendingInput: [UInt8] = []
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var interest: Interest = .readable
    private var timer: LoopTimer!
    private var deadline: Instant?
    private var deadlineKind: DeadlineKind = .idle
    private var requestStart: Instant
    private var lastWriteProgress: Instant
    private var lingered = 0
    private var keepAlive = true
    private var requestVersion: HTTPVersion = .http11
    private var isHeadRequest = false
    private var parked: ParkedRequest?
    private var stream: EventStream?
    private var resumeScheduled = false

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
        if events.contains(.writable) && outputOffset < output.count {
            flush()
        }
        switch state {
        case .reading:
            if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
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

    /// Reads what the socket has (a bounded number of times, for fairness) and answers it.
    private func readAndProcess() {
        let buffer = server.readBuffer
        var reads = 0
        while state == .reading && reads < 16 {
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
            if parser.isIdle && head == nil {
                requestStart = server.loop.now
            }
            process(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if outputOffset < output.count {
                flush()
                if output.count - outputOffset > server.configuration.maxResponseBacklog { break }
            }
            // A short read drained the socket: asking again would only return EAGAIN (one
            // wasted system call per request). Level-triggered epoll reports what comes next.
            if count < buffer.count { break }
        }
    }

    /// Parses `bytes` and dispatches each complete request. Bytes after a request that is
    /// parked or streaming are kept for later.
    private func process(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while state == .reading {
            let (event, consumed) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch event {
            case .needMore:
                if continuePending {
                    continuePending = false
                    output.append(contentsOf: HTTPResponseHead.continueBytes)
                }
                return
            case .head(let newHead):
                head = newHead
                continuePending = newHead.expectsContinue
            case .end(let body):
                continuePending = false
                guard let head else { return }
                self.head = nil
                dispatch(head, body: body)
            case .error(let error):
                refuse(status: error.status, reason: error.reason)
                return
            }
        }
        guard offset < bytes.count else { return }
        switch state {
        case .parked, .streaming:
            pendingInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        case .closingAfterWrite:
            // More input after the last answer: drain it before closing, or the close resets.
            state = .closingAfterWrite(linger: true)
        default:
            break
        }
    }

    private func dispatch(_ head: HTTPRequestHead, body: [UInt8]) {
        state = .handling
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
        if outputOffset < output.count {
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
        head.write(into: &output, contentLength: bodiless ? nil : response.body.count,
                   keepAlive: keepAlive, requestVersion: requestVersion, date: server.currentDate())
        if !bodiless && !isHeadRequest {
            output.append(contentsOf: response.body)
        }
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
        resumeSoon()
        settle()
    }

    /// Pipelined requests that waited behind a parked one are handled from the loop, not
    /// from inside whatever code answered the parked request.
    private func resumeSoon() {
        guard !resumeScheduled, state == .reading, !pendingInput.isEmpty else { return }
        resumeScheduled = true
        server.loop.runSoon { [weak self] in
            guard let self else { return }
            self.resumeScheduled = false
            guard self.state == .reading, !self.pendingInput.isEmpty else { return }
            let input = self.pendingInput
            self.pendingInput = []
            input.withUnsafeBytes { self.process($0) }
            self.flush()
            self.settle()
        }
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
        HTTPResponseHead(status: 200, headers: fields)
            .write(into: &output, contentLength: nil, keepAlive: false, requestVersion: requestVersion, date: server.currentDate())
        stream.start(loop: server.loop)
        return stream
    }

    func writeStream(_ bytes: [UInt8]) -> Bool {
        guard state == .streaming else { return false }
        output.append(contentsOf: bytes)
        flush()
        guard state == .streaming else { return false }
        if output.count - outputOffset > server.configuration.maxStreamBacklog {
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
        while outputOffset < output.count {
            let written: Int?
            do {
                written = try output.withUnsafeBytes { raw throws(Errno) in
                    try Socket.write(fd, from: UnsafeRawBufferPointer(rebasing: raw[outputOffset...]))
                }
            } catch {
                close()
                return
            }
            guard let written else { return }
            outputOffset += written
            lastWriteProgress = server.loop.now
        }
        // Everything is out: release the buffer, so idle connections hold no memory.
        output = []
        outputOffset = 0
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
        let pendingOutput = outputOffset < output.count
        var wanted: Interest
        switch state {
        case .reading:
            let throttled = pendingOutput && output.count - outputOffset > server.configuration.maxResponseBacklog
            wanted = throttled ? [] : .readable
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
            if parser.isReadingBody {
                (kind, due) = (.body, now + config.bodyTimeout)
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
            if parser.isIdle && head == nil && outputOffset >= output.count {
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
        if let registration {
            server.loop.unregister(registration)
            self.registration = nil
        }
        Socket.close(fd)
        output = []
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
