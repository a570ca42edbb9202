import EventLoop
import Logging
import Transports

/// Writing what is queued, the epoll interest that matches the state, and the one timer
/// that follows the connection's current deadline: the machine decides, the shell does.
extension HTTPConnection {
    // MARK: Writing

    func flush() {
        var produced = 0
        while true {
            if !output.isEmpty {
                do {
                    if try output.write(to: transport) > 0 { _ = machine.handle(.wrote(now: server.loop.now)) }
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
        let actions = machine.handle(.outputDrained(now: server.loop.now))
        if actions.shutdownWrite { transport.shutdownWrite() }
        if actions.close { close() }
    }

    /// After a read was handled: what it queued leaves at the end of the turn
    /// (`flushAtEndOfTurn`), except the last answer of a connection that closes (a refusal,
    /// an answer to `Connection: close`), which goes at once: no later request of that
    /// client can share its wake-up. The rule depends only on what happened, never on how
    /// long the handler took. An answer held for the turn's COMMIT leaves when it is given
    /// (`finishParked`), which is already the end of the turn.
    ///
    /// Sent at the end of the turn, with the answers of every other connection, instead of
    /// after each request: while the server is slower than its clients, an answer sent at once
    /// wakes a client that went to sleep waiting for it (on loopback the send does the
    /// wake-up: a third of a `GET`'s time was there); sent together, one wake-up finds many
    /// answers. Redis writes its replies in the same place (before the loop sleeps). What has
    /// no bytes to send (a close after the last answer) is done now.
    func flushAfterReading() {
        switch machine.handle(.readHandled(outside)).flush {
        case .now: flush()
        case .atEndOfTurn: server.flushAtEndOfTurn(self)
        case .none: break
        }
    }

    /// The scheduled flush, at the end of the turn. When everything went out and the
    /// connection reads on, the interest and deadline set when the turn handled it still hold
    /// (they did not count this output): no second `settle`.
    func flushScheduledOutput() {
        guard machine.handle(.endOfTurn).flush == .now else { return }
        flush()
        if machine.handle(.endOfTurnFlushed(outside, transport)).settle { settle() }
    }

    // MARK: Interest and timers

    /// Makes the epoll interest and the deadline match the state (`ConnectionWants` decides,
    /// through the machine).
    func settle() {
        let actions = machine.handle(.settle(outside, transport, now: server.loop.now))
        if actions.resume { resumeOnALaterTurn() }
        if let wanted = actions.interest, let registration {
            do {
                try server.loop.modify(registration, interest: wanted)
                _ = machine.handle(.interestSet(wanted))
            } catch {
                close()
                return
            }
        }
        if let due = actions.timer { server.loop.reschedule(timer, at: due) }
    }

    func timerFired() {
        let actions = machine.handle(.deadlineReached(now: server.loop.now))
        if let refusal = actions.refusal, let shape = actions.answer { encodeRefusal(refusal, shape) }
        if actions.close {
            close()
            return
        }
        if let due = actions.timer { server.loop.reschedule(timer, at: due) }
        if actions.flush == .now { flush() }
        if actions.settle { settle() }
    }
}
