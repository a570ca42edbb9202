import EventLoop
import Logging
import Transports

/// Reading: input from the transport into the machine, one turn at a time, and each complete
/// request to the handler.
extension HTTPConnection {
    /// Answers the input kept from before, then what the socket has, for one turn (at most
    /// `requestsPerTurn` requests and `readsPerTurn` reads), while the connection is reading and its
    /// answers are within the bound. What is left waits for a later turn (`settle`).
    func readAndProcess() {
        let buffer = server.readBuffer
        var reads = 0
        _ = machine.handle(.readTurn)
        while machine.takesRequests(backlogFull: isBacklogFull) {
            if !pendingInput.isEmpty {
                processPendingInput()
                flushAfterReading()
                continue
            }
            guard reads < ConnectionMachine.readsPerTurn else { break }
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

    /// Hands `bytes` to the machine and each complete request to the handler, until the
    /// bytes run out, or a request parks, opens a stream or ends the connection, or the
    /// answers are over the bound, or the turn is over. Returns how many bytes were used.
    func process(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while machine.takesRequests(backlogFull: isBacklogFull) {
            let actions = machine.handle(.bytes(UnsafeRawBufferPointer(rebasing: bytes[offset...]),
                                                now: server.loop.now, stopping: server.isShuttingDown))
            offset += actions.consumed
            if actions.writeContinue { output.append(HTTPResponseHead.continueBytes) }
            if let refusal = actions.refusal, let shape = actions.answer {
                encodeRefusal(refusal, shape)
                return offset
            }
            guard let head = actions.request else { return offset }
            dispatch(head, body: actions.body)
        }
        return offset
    }

    /// Whether input after the request that stopped `process` is kept for later. After the
    /// last answer it is not, but it is drained before the close, or the close resets.
    func keepsUnprocessedInput() -> Bool {
        machine.handle(.inputLeftOver).keepInput
    }

    func dispatch(_ head: HTTPRequestHead, body: [UInt8]) {
        let request = HTTPRequest(head: head, body: body, peer: peer, receivedAt: server.loop.now)
        server.handler.handle(request, HTTPResponder(answering: self, request: request))
        if state == .handling {
            Log.error("a handler returned without answering", ["method": head.method.name])
            respond(server.handler.refusal(status: 500, reason: "no answer"))
        }
    }

    /// The client closed its side. A request in progress can never complete.
    func endOfInput() {
        let actions = machine.handle(.peerEnded(outside))
        if actions.close {
            close()
        } else if actions.flush == .now {
            flush()
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
            if machine.handle(.lingerRead(count)).close {
                close()
                return
            }
        }
        settle()
    }
}
