import EventLoop
import Logging
import Transports

/// The socket's side: what epoll reports, reading into the framer, writing the queued
/// bytes, the one deadline, and the end.
extension PostgresConnection {
    public func handleIO(_ events: IOEvents) {
        switch phase {
        case .dialing: unixConnected()
        case .negotiatingTLS:
            flush()
            if phase == .negotiatingTLS && output.isEmpty { readTLSAnswer() }
        case .handshaking: handshake()
        case .authenticating, .ready:
            flush()
            readAvailable()
        case .closed: break
        }
        if phase != .closed { updateInterest() }
    }

    func watch(_ fd: Int32, _ wanted: Interest) throws(Errno) {
        registration = try loop.register(fd: fd, interest: wanted, handler: self)
        interest = wanted
    }

    func updateInterest() {
        guard let registration, let transport else { return }
        var wanted = Interest.readable.union(transport.neededInterest)
        if !output.isEmpty { wanted.insert(.writable) }
        guard wanted != interest else { return }
        do {
            try loop.modify(registration, interest: wanted)
            interest = wanted
        } catch {
            fail(PostgresError(.connectionLost, "epoll: \(error)"))
        }
    }

    /// Queues `bytes` and writes what the socket takes now.
    func send(_ bytes: [UInt8]) {
        output.append(bytes)
        flush()
        if phase != .closed { updateInterest() }
    }

    func flush() {
        guard let transport else { return }
        while !output.isEmpty {
            let written: Int?
            do {
                written = try transport.write(output[...], skipping: outputOffset)
            } catch {
                fail(PostgresError(.connectionLost, "writing to the server: \(error)"))
                return
            }
            guard var count = written, count > 0 else { return }
            while count > 0, let first = output.first {
                let left = first.count - outputOffset
                if count >= left {
                    count -= left
                    output.removeFirst()
                    outputOffset = 0
                } else {
                    outputOffset += count
                    count = 0
                }
            }
        }
    }

    /// Reads and handles what came, at most `readsPerEvent` reads: the rest waits for the
    /// next turn (epoll reports it again; TLS's decrypted rest is taken by a timer, as epoll
    /// cannot see it), so a server that floods cannot hold the loop.
    func readAvailable() {
        guard let transport else { return }
        for _ in 0..<limits.readsPerEvent {
            guard phase == .authenticating || phase == .ready else { return }
            let result: Result<Int?, Errno> = readBuffer.withUnsafeMutableBytes { raw in
                do throws(Errno) { return .success(try transport.read(into: raw)) } catch { return .failure(error) }
            }
            switch result {
            case .failure(let error):
                fail(closingError ?? PostgresError(.connectionLost, "reading from the server: \(error)"))
                return
            case .success(nil):
                return
            case .success(0):
                fail(closingError ?? PostgresError(.connectionLost, "the server closed the connection"))
                return
            case .success(let count?):
                readBuffer.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                handleMessages()
            }
        }
        if phase != .closed && transport.hasBufferedInput && readSoon == nil {
            readSoon = loop.schedule(after: .zero) { [weak self] in
                guard let self else { return }
                readSoon = nil
                readAvailable()
                if phase != .closed { updateInterest() }
            }
        }
    }

    enum OneByte {
        case byte(UInt8)
        case notYet
        case ended
        case failed(Errno)
    }

    /// One byte and no more, for the answer to `SSLRequest`.
    func readOneByte() -> OneByte {
        guard let transport else { return .ended }
        var byte: UInt8 = 0
        do {
            let count = try withUnsafeMutableBytes(of: &byte) { raw throws(Errno) in try transport.read(into: raw) }
            guard let count else { return .notYet }
            return count == 1 ? .byte(byte) : .ended
        } catch {
            return .failed(error)
        }
    }

    private func handleMessages() {
        while phase == .authenticating || phase == .ready {
            do throws(PostgresError) {
                guard let (type, body) = try framer.next() else { return }
                let message = try BackendMessage.parse(type: type, body: body)
                try receive(message)
            } catch {
                fail(error)
                return
            }
        }
    }

    private func receive(_ message: BackendMessage) throws(PostgresError) {
        switch message {
        case .notification(let notification):
            onNotification?(notification)
        case .notice(let notice):
            Log.debug("PostgreSQL notice", ["severity": notice.severity, "sqlstate": notice.sqlState, "message": notice.message])
        case .parameterStatus(let name, let value):
            serverParameters[name] = value
        case .error(let notice) where notice.severity == "FATAL" || notice.severity == "PANIC":
            // The server closes the connection after it; what is in flight fails with this.
            closingError = notice.error
            if phase == .authenticating { try receiveDuringStartup(message) }
        default:
            if phase == .authenticating {
                try receiveDuringStartup(message)
            } else if let answered = try pipeline.receive(message, prepared: &prepared) {
                armTimer()
                answered.completion(answered.result)
            }
        }
    }

    /// The one timer follows the current deadline: the set-up's, then the oldest batch's. It
    /// is only ever brought forward here, never moved back nor cancelled when the batches are
    /// answered: each batch's deadline is later than those before it, so a timer set for the
    /// oldest is early or right, and when it fires `deadlinePassed` sets it for the oldest
    /// then (or leaves it, none waiting). Moving it for every batch sent and answered was two
    /// changes of the loop's timer heap a round trip.
    func armTimer() {
        guard phase == .ready, let deadline = pipeline.nextDeadline else { return }
        if timer == nil {
            timer = loop.makeTimer { [weak self] in self?.deadlinePassed() }
        }
        if let timer, !timer.isScheduled || deadline < timer.deadline {
            loop.reschedule(timer, at: deadline)
        }
    }

    private func deadlinePassed() {
        guard phase == .ready, let deadline = pipeline.nextDeadline else { return }
        guard loop.now >= deadline else {
            armTimer()
            return
        }
        fail(PostgresError(.timedOut, "no answer to a batch within \(limits.queryTimeout.milliseconds) ms"))
    }

    /// The connection ended by itself: everything in flight gets `error`, then `onClose`.
    func fail(_ error: PostgresError) {
        guard phase != .closed else { return }
        let wasReady = phase == .ready
        let onClose = self.onClose
        self.onClose = nil
        shutDown(error)
        if wasReady { onClose?(error) }
    }

    /// Closes everything and fails what waits, in the order it was asked.
    func shutDown(_ error: PostgresError) {
        guard phase != .closed else { return }
        phase = .closed
        if let timer { loop.cancel(timer) }
        if let readSoon { loop.cancel(readSoon) }
        timer = nil
        readSoon = nil
        dialer?.cancel()
        dialer = nil
        if let registration { loop.unregister(registration) }
        registration = nil
        transport?.close()
        transport = nil
        output = []
        onNotification = nil
        let connect = connectCompletion
        connectCompletion = nil
        let waiting = pipeline.drain()
        withExtendedLifetime(self) {
            connect?(.failure(error))
            for completion in waiting { completion(.failure(error)) }
        }
    }
}
