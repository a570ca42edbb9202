import EventLoop
import Logging

/// Answers: encoding a response, refusing a request, parking one, and event streams.
extension HTTPConnection {
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

    func encode(_ response: HTTPResponse) {
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
    func resumeOnALaterTurn() {
        guard state == .reading, !pendingInput.isEmpty || transport.hasBufferedInput, !isBacklogFull else { return }
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
}
