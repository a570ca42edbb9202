import APNs
import Clock
import EventLoop
import Logging
import Relaydeck

/// Sends what the outbox holds (`push.md`), on the loop: after each change's commit (the
/// planner's `onPlanned` kicks it; the drain runs once the current request is answered), at
/// start (a restart delivers what was pending), and on a timer for the coalescing windows
/// and the retries. A job leaves the outbox when APNs took it or refused it for good; a
/// refused token is removed from its device. Loop thread only.
public final class PushDispatcher {
    /// Pushes sent at the same time, at most (the client multiplexes them).
    public static let maxInFlight = 32
    /// Sends of one job that end in a failure worth trying again (no connection, `429`,
    /// `500`, `503`), at most; the client has already retried each with its own backoff.
    public static let maxAttempts = 8
    /// The first wait before a job is tried again; it doubles up to `maxRetryDelayMillis`.
    public static let firstRetryDelayMillis: Int64 = 1_000
    public static let maxRetryDelayMillis: Int64 = 300_000
    /// When the outbox cannot be read (the store is down): try again after this.
    static let storeRetry = TimeSpan.seconds(1)

    private let clock: any Clock
    private let outbox: Outbox
    private let sender: any APNsSending
    /// Where each send's end is counted for `/metrics` (service `apns`).
    private let counts: PushCounts.Service?
    /// The IDs of the jobs claimed and handed to the sender, not answered yet.
    private var sending: Set<Int64> = []
    private let schedule: DrainSchedule
    /// After `stop`: answers that still come change nothing, so what was in flight stays in
    /// the outbox for the next start.
    private var stopped: Bool { schedule.stopped }

    /// `lookAgainMillis`: with several nodes on one database, the longest wait between two
    /// drains (the daemon gives the lease), so that jobs of other nodes, a dead one's among
    /// them, are found without a kick of this node's; nil with one process.
    public init(loop: EventLoop, clock: any Clock, outbox: Outbox, sender: any APNsSending,
                counts: PushCounts.Service? = nil, lookAgainMillis: Int64? = nil) {
        self.clock = clock
        self.outbox = outbox
        self.sender = sender
        self.counts = counts
        schedule = DrainSchedule(loop: loop, clock: clock, lookAgainMillis: lookAgainMillis)
        schedule.drain = { [unowned self] in await drain() }
    }

    /// How many pushes wait for APNs's answer.
    public var inFlight: Int { sending.count }

    /// Starts sending: the jobs the process before this one left claimed go again (with
    /// SQLite at once, `releaseLeftLeases`; with PostgreSQL when their lease ends), then a
    /// drain.
    public func start() {
        schedule.run { [self] in
            do {
                try await outbox.releaseLeftLeases()
            } catch {
                Log.warn("could not give back the pushes the last run left claimed; they go when their lease ends",
                         ["error": String(describing: error)])
            }
            kick()
        }
    }

    /// Drains soon: after the current event (a request and its answer) is handled.
    public func kick() {
        schedule.kick()
    }

    private func drain() async {
        // One reading of the clock for the whole drain: what comes due while it runs is
        // after it, so the next drain comes for it (`Outbox.nextDue(after:)`).
        let now = clock.wallMillis
        do {
            try await outbox.openDueWindows(now: now)
            let free = Self.maxInFlight - sending.count
            if free > 0 {
                for job in try await outbox.claimDue(limit: free, now: now) { send(job) }
            }
            if let next = try await outbox.nextDue(after: now) { schedule.wake(at: next) }
        } catch {
            Log.warn("could not read the push outbox; trying again", ["error": String(describing: error)])
            schedule.arm(at: clock.wallMillis + Self.storeRetry.milliseconds)
        }
    }

    private func send(_ job: PushJob) {
        sending.insert(job.id)
        let request = APNsRequest(
            environment: job.environment == .production ? .production : .sandbox, deviceToken: job.token,
            pushType: job.pushType, topic: job.topic, priority: job.priority, collapseID: job.collapseID,
            expiration: job.expiration, payload: job.payload)
        sender.send(request) { [weak self] result in
            guard let self else { return }
            schedule.run { [self] in await finished(job, result) }
        }
    }

    private func finished(_ job: PushJob, _ result: APNsResult) async {
        sending.remove(job.id)
        guard !stopped else { return }
        // Each send that ends is counted, a job tried again later once per send.
        counts?.count(kind: job.pushType, outcome: result.outcome)
        do {
            switch result {
            case .delivered:
                try await outbox.finish(job)
            case .refused(let status, let reason) where result.tokenIsInvalid:
                try await outbox.tokenIsInvalid(job)
                Log.info("APNs refused a token; it is removed", Self.fields(job, status: status, reason: reason))
            case .refused(let status, let reason) where Self.retryable(status):
                try await retryOrDrop(job, Self.fields(job, status: status, reason: reason))
            case .refused(let status, let reason):
                try await outbox.finish(job)
                Log.warn("APNs refused a push", Self.fields(job, status: status, reason: reason))
            case .unreachable(let detail):
                try await retryOrDrop(job, Self.fields(job, status: nil, reason: detail))
            }
        } catch {
            // The job stays in the outbox and goes again with the next drain.
            Log.warn("could not record a push's result", ["error": String(describing: error)])
            schedule.arm(at: clock.wallMillis + Self.storeRetry.milliseconds)
        }
        kick()
    }

    private func retryOrDrop(_ job: PushJob, _ fields: KeyValuePairs<String, String>) async throws {
        guard job.attempts + 1 < Self.maxAttempts else {
            try await outbox.finish(job)
            Log.warn("a push failed too many times; dropped", fields)
            return
        }
        let delay = DrainSchedule.backoff(attempts: job.attempts, first: Self.firstRetryDelayMillis, most: Self.maxRetryDelayMillis)
        try await outbox.retry(job, at: clock.wallMillis + delay)
        Log.info("a push failed; trying again later", fields)
    }

    /// Worth trying again later: too many requests, or APNs itself failing.
    static func retryable(_ status: Int) -> Bool {
        status == 429 || status >= 500
    }

    /// What a log line says of a push: never the token.
    static func fields(_ job: PushJob, status: Int?, reason: String?) -> KeyValuePairs<String, String> {
        [
            "push_type": job.pushType, "token_kind": job.tokenKind.rawValue, "device_id": job.deviceID,
            "status": status.map(String.init) ?? "-", "reason": reason ?? "-", "attempts": String(job.attempts + 1),
        ]
    }

    /// Stops for good (at the server's stop, before the store closes): no more drains, and
    /// the outbox keeps what was not sent or not answered, due again at once for the next
    /// start (their leases given back before this returns).
    public func stop() async {
        schedule.stop()
        let unanswered = Array(sending)
        guard !unanswered.isEmpty else { return }
        do {
            try await outbox.release(unanswered)
        } catch {
            Log.warn("could not give back the pushes in flight; they go again when their lease ends",
                     ["error": String(describing: error)])
        }
    }
}
