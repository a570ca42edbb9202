import EventLoop
import HTTP
import Relaydeck

/// One parked call: its wait, its record, and the connection's parked request. It answers
/// once, whichever of wake-up, timeout, server stop, the deletion of its credential or the
/// loss of its wait's scope comes first; a client that goes away ends it without an answer.
/// Either way `ended` gets it, with the record complete.
final class Waiter {
    let wait: Wait
    /// Who sent it (nil for a route without a credential): the key or account whose waiting
    /// calls it counts toward, and whose deletion ends it.
    let principal: Principal?
    private(set) var record: RequestRecord
    private let parked: ParkedRequest
    private let ended: (Waiter) -> Void
    private let loop: EventLoop
    /// A `poll` or `expire` runs (a task: they read the store through a session); a wake-up
    /// meanwhile is kept for when it ends, and nothing else answers until then.
    private var answering = false
    private var wokenMeanwhile = false
    /// Its time is up and `expire` has been asked for (it reads the store); a second timeout
    /// means the store did not answer in the room given.
    private var timedOut = false
    /// Why it may no longer answer what its wait finds; whatever ends it answers this.
    private var revoked: Revocation?

    enum Revocation {
        /// Its key or account was deleted: `401`, what a request with it gets now.
        case credentialGone
        /// Its key lost the scope the wait needs: that refusal, as the call's own failure
        /// (a tool error for an MCP tool), with its activity entry.
        case scopeRemoved(APIError)
    }

    init(wait: Wait, record: RequestRecord, parked: ParkedRequest, loop: EventLoop, ended: @escaping (Waiter) -> Void) {
        self.wait = wait
        self.loop = loop
        principal = record.principal
        self.record = record
        self.parked = parked
        self.ended = ended
        // The parked request drops these closures when it ends, which breaks the cycle.
        parked.onTimeout = { [self] parked in timeUp(parked) }
        parked.onCancel = { [self] _ in
            self.record.ending = .clientWentAway
            self.ended(self)
        }
    }

    var isActive: Bool { parked.isActive }

    /// The wait's time is up (or the server stops): `expire` answers, as a task that reads the
    /// store, within `APIHandler.writeLockWait` more; a store that does not answer in that
    /// time gets the call `503` (the failure's shape: a tool error for an MCP tool).
    private func timeUp(_ parked: ParkedRequest) {
        guard !timedOut else {
            let failure = APIError.unavailable(retryAfter: Store.retryAfterSeconds)
            record.note(failure)
            let response = wait.failed(failure)
            record.status = response.status
            record.ending = .answered
            parked.respond(response)
            ended(self)
            return
        }
        timedOut = true
        parked.restartTimer(APIHandler.writeLockWait)
        // A poll on its way is let end first; its end takes the expiry up.
        guard !answering else { return }
        start(wait.expiryOnlyWaited ? .onlyWaited : .answered, wait.expire)
    }

    /// A wake-up: answers when `poll` has an answer.
    func poll() {
        guard parked.isActive else { return }
        guard !answering else {
            wokenMeanwhile = true
            return
        }
        start(.answered, wait.poll)
    }

    /// The credential that sent it no longer works, or no longer holds the wait's scope. From
    /// here on it can only answer that, even if a wake-up or its timer comes before `end`
    /// does. A deletion overrides a lost scope, never the other way round.
    func revoke(_ why: Revocation) {
        if case .credentialGone? = revoked { return }
        revoked = why
    }

    /// Answers a revoked call now.
    func end() {
        guard parked.isActive, revoked != nil, !answering else { return }
        start(.answered) { nil }
    }

    /// `make` as a task on the loop (with SQLite it has ended when this returns); a wake-up
    /// or a revocation that came while it ran is taken up after it.
    private func start(_ ending: RequestRecord.Ending, _ make: @escaping () async throws -> HTTPResponse?) {
        answering = true
        loop.startTask { [self] in
            await answer(ending, make)
            answering = false
            guard parked.isActive else { return }
            if revoked != nil {
                end()
            } else if timedOut {
                start(wait.expiryOnlyWaited ? .onlyWaited : .answered, wait.expire)
            } else if wokenMeanwhile {
                wokenMeanwhile = false
                poll()
            }
        }
    }

    private func answer(_ ending: RequestRecord.Ending, _ make: () async throws -> HTTPResponse?) async {
        let response: HTTPResponse
        switch revoked {
        case .credentialGone?:
            // What a request with this credential gets now (`mcp.md#connect`: `/mcp` gives the
            // REST body too). The key's or account's activity goes with it, so no entry.
            record.note(APIError.unauthorized)
            record.hasEntry = false
            response = APIError.unauthorized.response
        case .scopeRemoved(let refusal)?:
            record.note(refusal)
            response = wait.failed(refusal)
        case nil:
            do {
                guard let made = try await make(), parked.isActive else { return }
                response = made
            } catch {
                let failure = APIError.from(error)
                record.note(failure)
                response = wait.failed(failure)
            }
        }
        // What it waited on may have ended it meanwhile (the client went away, its time ran out).
        guard parked.isActive else { return }
        record.status = response.status
        record.ending = ending
        parked.respond(response)
        ended(self)
    }
}
