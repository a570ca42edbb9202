import EventLoop
import Logging
import Transports

/// Reading: input from the transport into the parser, one turn at a time, and each complete
/// request to the handler.
extension HTTPConnection {
    /// Answers the input kept from before, then what the socket has, for one turn (at most
    /// `requestsPerTurn` requests and 16 reads), while the connection is reading and its
    /// answers are within the bound. What is left waits for a later turn (`settle`).
    func readAndProcess() {
        let buffer = server.readBuffer
        var reads = 0
        requestsLeftInTurn = Self.requestsPerTurn
        while state == .reading && !isBacklogFull && requestsLeftInTurn > 0 {
            if !pendingInput.isEmpty {
                processPendingInput()
                flushAfterReading()
                continue
            }
            guard reads < 16 else { break }
            reads += 1
            let count: Int?
            do {
                count = try transport.read(into: buffer)
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
            flushAfterReading()
            // A short read drained the socket: asking again would only return EAGAIN (one
            // wasted system call per request). Level-triggered epoll reports what comes next.
            if count < buffer.count && !transport.hasBufferedInput { break }
        }
    }

    func processPendingInput() {
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
    func process(_ bytes: UnsafeRawBufferPointer) -> Int {
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
    func keepsUnprocessedInput() -> Bool {
        switch state {
        case .reading, .parked, .held, .streaming:
            return true
        case .closingAfterWrite:
            state = .closingAfterWrite(linger: true)
            return false
        case .handling, .lingering, .closed:
            return false
        }
    }

    func dispatch(_ head: HTTPRequestHead, body: [UInt8]) {
        state = .handling
        requestsLeftInTurn -= 1
        keepAlive = head.keepAlive && !server.isShuttingDown
        requestVersion = head.version
        isHeadRequest = head.method == .head
        let request = HTTPRequest(head: head, body: body, peer: peer, receivedAt: server.loop.now)
        server.handler.handle(request, HTTPResponder(answering: self, request: request))
        if state == .handling {
            Log.error("a handler returned without answering", ["method": head.method.name])
            respond(server.handler.refusal(status: 500, reason: "no answer"))
        }
    }

    /// The client closed its side. A request in progress can never complete.
    func endOfInput() {
        if !output.isEmpty || producer != nil {
            state = .closingAfterWrite(linger: false)
            flush()
        } else {
            close()
        }
    }

    func drainLinger() {
        let buffer = server.readBuffer
        while true {
            let result: Int?
            do {
                result = try transport.read(into: buffer)
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
}
