import EventLoop
import HTTP
import Relaydeck

/// Group commit: the requests that write in one turn of the loop share one transaction, and
/// their answers leave together after its COMMIT. A write's pages (the task row, its indexes,
/// the key's counts, the change sequence) then reach the WAL once a turn instead of once a
/// request: about 11 pages and 22 `pwrite` calls per write request before, under any load
/// with more than one write per turn.
///
/// What does not change: a `2xx` still means committed (no answer of the turn leaves before
/// the COMMIT; if it fails, every request of the turn gets `503`, and nothing of any of them is
/// kept); each request's own writes are a savepoint inside the transaction, so a request that
/// fails undoes only itself (with the changes it recorded); subscribers see the changes only
/// after the COMMIT (the turn is one `UnitOfWork`: it keeps what its writes recorded until
/// then, and drops it if the COMMIT fails). A read answered in the same turn after a write may
/// have seen that write's rows, so its answer waits for the COMMIT too. A request that parks
/// or opens a stream commits the turn first, then goes on as before.
final class TurnCommit {
    /// The turn's transaction and the changes recorded in it.
    let work: UnitOfWork

    init(work: UnitOfWork) {
        self.work = work
    }

    struct Waiting {
        let parked: ParkedRequest
        let response: HTTPResponse
        let record: RequestRecord
        /// The request, for the way its endpoint answers a failed COMMIT.
        let prepared: APIHandler.Prepared
    }

    var waiting: [Waiting] = []
}

extension APIHandler {
    /// Called once the turn's transaction is open (`takeWriteLock`): it is committed once the
    /// turn's events are handled, before the loop sleeps.
    func openTurn(_ work: UnitOfWork) {
        turn = TurnCommit(work: work)
        context.loop.atEndOfTurn(.commit) { [weak self] in self?.commitTurn() }
    }

    /// Answers `outcome` now, or, while the turn has a transaction open, once it is committed.
    func answerAfterCommit(_ outcome: Outcome, _ prepared: Prepared, channel: Channel, record: RequestRecord) {
        guard let turn else {
            deliver(outcome, to: channel, record: record, prepared: prepared)
            return
        }
        guard case .respond(let response) = outcome else {
            // A wait, work off the loop or a stream: commit what the turn wrote (this
            // request's writes with it), then carry it out as before.
            var record = record
            if let error = commitTurn() {
                deliver(.respond(failure(error, &record, prepared)), to: channel, record: record)
            } else {
                deliver(outcome, to: channel, record: record, prepared: prepared)
            }
            return
        }
        // The COMMIT comes later in this turn; the timer only guards against a turn that
        // never ends (the server stopping answers it the same way).
        let parked: ParkedRequest
        switch channel {
        case .responder(let responder): parked = responder.parkUntilEndOfTurn(timeout: Self.writeLockWait)
        case .parked(let waiting):
            // Its record ends with the COMMIT below, also when its client goes meanwhile.
            waiting.onCancel = nil
            waiting.restartTimer(Self.writeLockWait)
            parked = waiting
        }
        parked.onTimeout = { [weak self] _ in self?.commitTurn() }
        turn.waiting.append(TurnCommit.Waiting(parked: parked, response: response, record: record, prepared: prepared))
    }

    /// Commits the turn's transaction and answers the requests that waited for it; when the
    /// COMMIT fails, everything of the turn is rolled back and each of them gets the failure.
    /// Returns that failure; nil when committed (or when no transaction was open).
    @discardableResult
    func commitTurn() -> (any Error)? {
        guard let ending = turn else { return nil }
        turn = nil
        var commitError: (any Error)?
        do {
            // Publishes what the turn's writes recorded, in order; a failure keeps nothing.
            try ending.work.commit()
        } catch {
            commitError = error
        }
        for item in ending.waiting {
            var record = item.record
            let response = commitError.map { failure($0, &record, item.prepared) } ?? item.response
            // A client that went away meanwhile gets nothing, but its request was carried out
            // (or undone) all the same: its record ends like any answered one.
            item.parked.respond(response)
            record.status = response.status
            finish(record)
        }
        return commitError
    }
}
