import EventLoop
import Logging
import Transports

/// Answers: encoding a response, refusing a request, parking one, and event streams.
extension HTTPConnection {
    // MARK: Answers

    func respond(_ response: HTTPResponse) {
        _ = answer(response, parked: false)
    }

    /// Gives the answer to the machine, which says whether and how it is written.
    private func answer(_ response: HTTPResponse, parked: Bool) -> ConnectionMachine.Actions {
        let actions = machine.handle(.answer(produced: response.producer != nil && !Self.isBodiless(response),
                                             parked: parked))
        if let shape = actions.answer { encode(response, shape) }
        return actions
    }

    /// Answers a request the server refuses before (or instead of) the handler, and closes
    /// (`ConnectionMachine`'s refusal).
    func refuse(status: Int, reason: String) {
        let actions = machine.handle(.refuse(ConnectionMachine.Refusal(status: status, reason: reason)))
        if let refusal = actions.refusal, let shape = actions.answer { encodeRefusal(refusal, shape) }
    }

    func encodeRefusal(_ refusal: ConnectionMachine.Refusal, _ shape: ConnectionMachine.AnswerShape) {
        Log.debug("refused a request", ["status": String(refusal.status), "reason": refusal.reason,
                                        "peer": peer.description])
        encode(server.handler.refusal(status: refusal.status, reason: refusal.reason), shape)
    }

    /// 1xx, 204 and 304 carry no body and no Content-Length (RFC 9110 8.6).
    static func isBodiless(_ response: HTTPResponse) -> Bool {
        response.status < 200 || response.status == 204 || response.status == 304
    }

    func encode(_ response: HTTPResponse, _ shape: ConnectionMachine.AnswerShape) {
        let bodiless = Self.isBodiless(response)
        if let producer = response.producer, !bodiless {
            encodeProduced(response, producer, shape)
            return
        }
        let head = HTTPResponseHead(status: response.status, headers: response.headers)
        let body = bodiless || shape.omitsBody ? [] : response.body
        // A small body is copied in after its head (one buffer for a run of small answers);
        // a large one is queued as the handler's own array, never copied.
        let copied = body.count < OutputQueue.ownChunkThreshold
        output.appendCopying(expected: 256 + (copied ? body.count : 0)) { buffer in
            head.write(into: &buffer, contentLength: bodiless ? nil : response.body.count,
                       keepAlive: shape.keepAlive, requestVersion: shape.version, date: server.currentDate())
            if copied { buffer.append(contentsOf: body) }
        }
        if !copied { output.append(body) }
    }

    /// The head of an answer whose body comes in pieces (`HTTPBodyProducer`): chunked for
    /// HTTP/1.1, up to the close for HTTP/1.0 (which has no chunks). `flush` asks for the
    /// pieces; until the last one is out no later request of the connection is handled
    /// (`isBacklogFull`), so answers stay in order.
    private func encodeProduced(_ response: HTTPResponse, _ producer: any HTTPBodyProducer,
                                _ shape: ConnectionMachine.AnswerShape) {
        var headers = response.headers
        if shape.chunked { headers.append(("Transfer-Encoding", "chunked")) }
        let head = HTTPResponseHead(status: response.status, headers: headers)
        output.appendCopying(expected: 256) { buffer in
            head.write(into: &buffer, contentLength: nil, keepAlive: shape.keepAlive, requestVersion: shape.version,
                       date: server.currentDate())
        }
        guard !shape.omitsBody else { return }
        self.producer = producer
        producerChunked = shape.chunked
    }

    /// Queues the next piece of the produced body (as a chunk), or its end.
    func producePiece() {
        guard let producer else { return }
        guard let piece = producer.nextPiece() else {
            self.producer = nil
            if producerChunked { output.append(Self.lastChunk) }
            return
        }
        guard !piece.isEmpty else { return }
        if producerChunked {
            output.appendCopying(expected: 16) { buffer in
                buffer.append(contentsOf: String(piece.count, radix: 16).utf8)
                buffer.append(contentsOf: Self.crlf)
            }
        }
        output.append(piece)
        if producerChunked { output.appendCopying(expected: 2) { $0.append(contentsOf: Self.crlf) } }
    }

    static let crlf: [UInt8] = [0x0D, 0x0A]
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    func park(_ request: HTTPRequest, timeout: TimeSpan) -> ParkedRequest {
        precondition(state == .handling, "park outside of handle")
        let parked = ParkedRequest(request: request, owner: self)
        self.parked = parked
        _ = machine.handle(.park)
        parked.arm(timeout: timeout)
        return parked
    }

    /// The answer comes later in this turn (`HTTPResponder.parkUntilEndOfTurn`). Its answer
    /// leaves as soon as it is given (`finishParked`): by then the turn's events are handled.
    func holdUntilEndOfTurn(_ request: HTTPRequest, timeout: TimeSpan) -> ParkedRequest {
        precondition(state == .handling, "holdUntilEndOfTurn outside of handle")
        let held = ParkedRequest(request: request, owner: self)
        parked = held
        _ = machine.handle(.hold)
        held.arm(timeout: timeout)
        return held
    }

    func finishParked(_ response: HTTPResponse) {
        guard state == .parked || state == .held else { return }
        parked = nil
        let actions = answer(response, parked: true)
        if actions.flush == .now { flush() }
        if actions.settle { settle() }
    }

    /// Takes up kept input on a later turn of the loop: not from inside whatever code
    /// answered a parked request, and after the events of the other connections. A timer
    /// due now runs once the current batch of events is handled. Over the bound, the
    /// writable event resumes instead.
    func resumeOnALaterTurn() {
        let timer = resumeTimer ?? server.loop.makeTimer { [weak self] in self?.resume() }
        resumeTimer = timer
        if !timer.isScheduled {
            server.loop.reschedule(timer, at: server.loop.now)
        }
    }

    func resume() {
        guard state == .reading else { return }
        readAndProcess()
        settle()
    }

    // MARK: Streams

    func openEventStream(pingInterval: TimeSpan, headers: [(name: String, value: String)]) -> EventStream {
        // A parked request's answer may be a stream after all (`ParkedRequest.openEventStream`).
        let fromParked = state == .parked || state == .held
        precondition(state == .handling || fromParked, "openEventStream outside of handle")
        if fromParked { parked = nil }
        let stream = EventStream(connection: self, loop: server.loop, pingInterval: pingInterval)
        self.stream = stream
        let shape = machine.handle(.openStream).answer!
        let fields = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")] + headers
        let head = HTTPResponseHead(status: 200, headers: fields)
        output.appendCopying(expected: 256) { buffer in
            head.write(into: &buffer, contentLength: nil, keepAlive: shape.keepAlive, requestVersion: shape.version,
                       date: server.currentDate())
        }
        stream.start()
        if fromParked {
            // Outside `handle` nothing else sends the head or looks at the connection again.
            flush()
            settle()
        }
        return stream
    }

    func writeStream(_ bytes: [UInt8]) -> Bool {
        guard state == .streaming else { return false }
        output.append(bytes)
        flush()
        let actions = machine.handle(.streamWritten(backlog: output.count))
        if actions.close {
            Log.info("cut off an event stream that reads too slowly", ["peer": peer.description])
            close()
            return false
        }
        guard actions.settle else { return false }
        settle()
        return true
    }

    func endStream() {
        let actions = machine.handle(.endStream)
        guard actions.endStream else { return }
        let stream = self.stream
        self.stream = nil
        stream?.closed()
        if actions.flush == .now { flush() }
        if actions.settle { settle() }
    }
}
