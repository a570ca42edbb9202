import EventLoop
import Logging
import Transports

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

    /// Makes the epoll interest and the deadline match the state (`ConnectionWants` decides).
    func settle() {
        if state == .reading { resumeOnALaterTurn() }
        guard state != .closed else { return }
        let facts = wantsFacts()
        guard let wanted = ConnectionWants.interest(facts) else { return }
        if wanted != interest, let registration {
            do {
                try server.loop.modify(registration, interest: wanted)
                interest = wanted
            } catch {
                close()
                return
            }
        }
        let (kind, due) = ConnectionWants.deadline(facts, server.configuration)
        deadline = due
        deadlineKind = kind
        guard let due else { return }
        // Moving a deadline later costs nothing: the timer fires at the old time and is
        // re-armed then. Only an earlier deadline touches the timer heap.
        if !timer.isScheduled || timer.deadline > due {
            server.loop.reschedule(timer, at: due)
        }
    }

    private func wantsFacts() -> ConnectionWants.Facts {
        let config = server.configuration
        let readingBody = state == .reading && parser.isReadingBody
        return ConnectionWants.Facts(
            state: state,
            // Output whose flush is scheduled for the end of this turn needs no writable event.
            pendingOutput: (!output.isEmpty || producer != nil) && !flushScheduled,
            backlogFull: isBacklogFull, hasPendingInput: !pendingInput.isEmpty,
            interest: interest, transportNeeds: transport.neededInterest,
            transportEstablished: transport.isEstablished,
            requestBegun: !parser.isIdle || head != nil,
            bodyDue: readingBody ? bodyDeadline?.due(pause: config.bodyTimeout, minimumRate: config.bodyMinimumRate) : nil,
            requestStart: requestStart, lastWriteProgress: lastWriteProgress, now: server.loop.now)
    }

    func timerFired() {
        guard let deadline, state != .closed else { return }
        if server.loop.now < deadline {
            server.loop.reschedule(timer, at: deadline)
            return
        }
        switch ConnectionWants.expiry(of: deadlineKind) {
        case .close:
            close()
        case .refuse(let reason):
            refuse(status: 408, reason: reason)
            flush()
            settle()
        }
    }
}
