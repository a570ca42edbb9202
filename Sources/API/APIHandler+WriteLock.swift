import EventLoop
import HTTP
import Relaydeck

/// A request that changes the store holds SQLite's write lock from before its credential is
/// checked until its answer is built, in one transaction: the services' own transactions are
/// savepoints inside it. The lock is taken without waiting; while another process holds it
/// (a backup, an operator's `sqlite3`) the request is parked and tries again on a timer, so
/// reads, `/health`, waiting calls and streams go on; after `writeLockWait` it is `503`.
extension APIHandler {
    /// How long a write waits for a lock held elsewhere.
    static let writeLockWait = TimeSpan.seconds(5)

    enum LockAttempt {
        case held
        case busy
        /// The store cannot be reached at all: the request runs without the lock, so what
        /// is refused before the store is asked (a `422` body) is refused as usual, and
        /// what needs the store answers `503` by itself.
        case unavailable
    }

    func takeWriteLock() -> LockAttempt {
        // The turn's transaction is open already: this request joins it.
        if turn != nil { return .held }
        // PostgreSQL's store: each write is a transaction of its own (no turn's yet).
        guard let sqlite = context.services.sqlite else { return .held }
        do {
            // The unit of work keeps the changes for its COMMIT: a subscriber never sees one
            // that rolls back.
            guard let work = try sqlite.tryBeginWork() else { return .busy }
            openTurn(work)
            return .held
        } catch {
            return .unavailable
        }
    }

    /// What runs once the lock is held: the whole request (gate and endpoint), or the rest of
    /// an endpoint that waited for work off the loop (`Pending`).
    typealias LockedWork = nonisolated(nonsending) (_ record: inout RequestRecord) async -> Outcome

    /// Runs `work` with the lock held, then commits whatever it wrote, with the rest of the
    /// turn's transaction (an endpoint that failed has already undone its own savepoint; the
    /// key's use stays recorded). For a request answered at once, outside a loop turn's
    /// batch: one that waited for the lock or for work off the loop.
    func runHoldingLock(_ work: LockedWork, _ prepared: Prepared, record: inout RequestRecord) async -> Outcome {
        let outcome = await work(&record)
        if let error = commitTurn() {
            return .respond(failure(error, &record, prepared))
        }
        return outcome
    }

    /// Tries again soon, and more slowly the longer the lock stays held; the parked
    /// request's own timer ends the wait with `503`.
    func waitForWriteLock(_ prepared: Prepared, record: RequestRecord, parked: ParkedRequest) {
        let attempt = WriteLockAttempt(handler: self, prepared: prepared, record: record, parked: parked) { [unowned self] record in
            await execute(prepared, record: &record)
        }
        attempt.schedule(after: .milliseconds(5))
    }

    /// Runs `work` for a parked request as a write request of its own: at once when the lock
    /// can be had, else on `WriteLockAttempt`'s timer, for at most `writeLockWait`.
    func runWithWriteLock(_ work: @escaping LockedWork, _ prepared: Prepared, record: RequestRecord, parked: ParkedRequest) {
        let attempt = WriteLockAttempt(handler: self, prepared: prepared, record: record, parked: parked, work: work)
        parked.restartTimer(Self.writeLockWait)
        attempt.tryNow()
    }
}

/// One request waiting for the write lock.
final class WriteLockAttempt {
    private unowned let handler: APIHandler
    private let prepared: APIHandler.Prepared
    private var record: RequestRecord
    private let parked: ParkedRequest
    private let work: APIHandler.LockedWork
    private var timer: LoopTimer?
    private var delay = TimeSpan.milliseconds(5)

    init(handler: APIHandler, prepared: APIHandler.Prepared, record: RequestRecord, parked: ParkedRequest,
         work: @escaping APIHandler.LockedWork) {
        self.handler = handler
        self.prepared = prepared
        self.record = record
        self.parked = parked
        self.work = work
        self.record.parked = true
        // The parked request drops these closures when it ends, which breaks the cycle.
        parked.onTimeout = { [self] _ in giveUp() }
        parked.onCancel = { [self] _ in clientWentAway() }
    }

    private var loop: EventLoop { handler.context.loop }

    func schedule(after span: TimeSpan) {
        timer = loop.schedule(after: span) { [self] in tryNow() }
    }

    func tryNow() {
        timer = nil
        guard parked.isActive else { return }
        switch handler.takeWriteLock() {
        case .held:
            loop.startTask { [self] in
                var record = record
                let outcome = await handler.runHoldingLock(work, prepared, record: &record)
                if parked.isActive { handler.deliver(outcome, to: .parked(parked), record: record, prepared: prepared) }
            }
        case .busy:
            delay = min(delay + delay, .milliseconds(50))
            schedule(after: delay)
        case .unavailable:
            loop.startTask { [self] in
                var record = record
                let outcome = await work(&record)
                if parked.isActive { handler.deliver(outcome, to: .parked(parked), record: record, prepared: prepared) }
            }
        }
    }

    private func giveUp() {
        cancelTimer()
        let unavailable = StoreError.unavailable(retryAfterSeconds: Store.retryAfterSeconds)
        handler.deliver(.respond(handler.failure(unavailable, &record, prepared)), to: .parked(parked), record: record,
                        prepared: prepared)
    }

    private func clientWentAway() {
        cancelTimer()
        record.ending = .clientWentAway
        handler.finish(record)
    }

    private func cancelTimer() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }
}
