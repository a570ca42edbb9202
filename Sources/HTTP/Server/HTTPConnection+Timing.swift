import EventLoop
import Logging

/// Writing what is queued, the epoll interest that matches the state, and the one timer
/// that follows the connection's current deadline.
extension HTTPConnection {
    // MARK: Writing

    func flush() {
        var produced = 0
        while true {
            if !output.isEmpty {
                do {
                    if try output.write(to: transport) > 0 { lastWriteProgress = server.loop.now }
                } catch {
                    close()
                    return
                }
            }
            // A produced body gets its next piece once the queue is low, a few per call.
            guard producer != nil, output.count < Self.producerLowWater, produced < Self.producedPerFlush else { break }
            let before = output.count
            producePiece()
            produced += output.count - before
        }
        guard output.isEmpty, producer == nil else { return }
        if case .closingAfterWrite(let linger) = state {
            if linger {
                transport.shutdownWrite()
                state = .lingering
                lingered = 0
                requestStart = server.loop.now
            } else {
                close()
            }
        }
    }

    /// After a read was handled: what it queued leaves at the end of the turn
    /// (`flushAtEndOfTurn`), except the last answer of a connection that closes (a refusal,
    /// an answer to `Connection: close`), which goes at once: no later request of that
    /// client can share its wake-up. The rule depends only on what happened, never on how
    /// long the handler took. An answer held for the turn's COMMIT leaves when it is given
    /// (`finishParked`), which is already the end of the turn.
    func flushAfterReading() {
        if case .closingAfterWrite = state {
            flush()
        } else {
            flushAtEndOfTurn()
        }
    }

    /// Sends what this turn's requests queued once the turn's events are handled, with the
    /// answers of every other connection, instead of after each request. While the server is
    /// slower than its clients, an answer sent at once wakes a client that went to sleep
    /// waiting for it (on loopback the send does the wake-up: a third of a `GET`'s time was
    /// there); sent together, one wake-up finds many answers. Redis writes its replies in
    /// the same place (before the loop sleeps). What has no bytes to send (a close after the
    /// last answer) is done now.
    func flushAtEndOfTurn() {
        guard !output.isEmpty || producer != nil else {
            flush()
            return
        }
        guard !flushScheduled else { return }
        flushScheduled = true
        server.flushAtEndOfTurn(self)
    }

    /// The scheduled flush, at the end of the turn. When everything went out and the
    /// connection reads on, the interest and deadline set when the turn handled it still hold
    /// (they did not count this output): no second `settle`.
    func flushScheduledOutput() {
        guard flushScheduled else { return }
        flushScheduled = false
        guard state != .closed else { return }
        flush()
        // (Output over the backlog bound had turned reading off, and kept input needs its
        // resume: those settle again.)
        if output.isEmpty && producer == nil && state == .reading && interest == .readable && pendingInput.isEmpty
            && transport.neededInterest.isEmpty { return }
        settle()
    }

    // MARK: Interest and timers

    /// Makes the epoll interest and the deadline match the state.
    func settle() {
        // Output whose flush is scheduled for the end of this turn needs no writable event.
        let pendingOutput = (!output.isEmpty || producer != nil) && !flushScheduled
        var wanted: Interest
        switch state {
        case .reading:
            // Kept input is taken up before the socket is read again (see `handleIO`).
            wanted = isBacklogFull || !pendingInput.isEmpty ? [] : .readable
            resumeOnALaterTurn()
        case .held:
            // Answered before the loop sleeps: a readable event meanwhile waits for that turn.
            wanted = interest.subtracting(.writable)
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
        wanted.formUnion(transport.neededInterest)
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

    func updateDeadline(pendingOutput: Bool) {
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
            } else if !transport.isEstablished {
                // `requestStart` is still the accept time: no request has begun.
                (kind, due) = (.handshake, requestStart + config.headerTimeout)
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

    func timerFired() {
        guard let deadline, state != .closed else { return }
        if server.loop.now < deadline {
            server.loop.reschedule(timer, at: deadline)
            return
        }
        switch deadlineKind {
        case .idle, .handshake, .write, .linger:
            close()
        case .header, .body:
            refuse(status: 408, reason: deadlineKind == .header ? "headers too slow" : "body too slow")
            flush()
            settle()
        }
    }
}
