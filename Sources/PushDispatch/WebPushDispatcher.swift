import Clock
import Crypto
import EventLoop
import Logging
import Relaydeck
import WebPush

/// Sends what the Web Push outbox holds (issue 21), on the loop, as `PushDispatcher` does for
/// APNs: after each commit that planned a message, at start (a restart sends what was
/// pending), and on a timer for retries. Each message is encrypted at its send for the
/// subscription's keys of then (RFC 8291) and signed for its push service's origin (VAPID,
/// RFC 8292). A job leaves the outbox when the service took it (`2xx`), the subscription is
/// gone (`404`, `410`: removed with it), it was refused for good, or it expired; `429` and
/// `5xx` and a failed connection are tried again with backoff, after `Retry-After` when the
/// service says, until the message's `expires_at`. Loop thread only.
public final class WebPushDispatcher {
    /// Pushes in flight at once, at most: one connection each.
    public static let maxInFlight = 16
    /// The first wait before a job is tried again without `Retry-After` (issue 21: within
    /// 30 s); it doubles up to `maxRetryDelayMillis`.
    public static let firstRetryDelayMillis: Int64 = 10_000
    public static let maxRetryDelayMillis: Int64 = 3_600_000
    /// The outcomes counted for `/metrics`.
    public static let outcomes = ["sent", "gone", "too_large", "rate_limited", "service_error", "refused", "unreachable",
                                  "blocked", "expired", "other"]
    static let storeRetry = TimeSpan.seconds(1)

    private let clock: any Clock
    private let outbox: WebPushOutbox
    private let sender: any WebPushSending
    private let key: () throws -> P256.PrivateKey
    private let subject: String
    private var vapid: VAPIDToken?
    private let counts: PushCounts.Service?
    private var sending: Set<Int64> = []
    private let schedule: DrainSchedule

    /// `key` gives the server's VAPID key (read from the store at the first send);
    /// `lookAgainMillis` is `PushDispatcher`'s.
    public init(loop: EventLoop, clock: any Clock, outbox: WebPushOutbox, sender: any WebPushSending,
                key: @escaping () throws -> P256.PrivateKey, subject: String, counts: PushCounts.Service? = nil,
                lookAgainMillis: Int64? = nil) {
        self.clock = clock
        self.outbox = outbox
        self.sender = sender
        self.key = key
        self.subject = subject
        self.counts = counts
        schedule = DrainSchedule(loop: loop, clock: clock, lookAgainMillis: lookAgainMillis)
        schedule.drain = { [unowned self] in await drain() }
    }

    /// How many pushes wait for their service's answer.
    public var inFlight: Int { sending.count }

    /// Starts sending: the jobs the process before this one left claimed go again (with
    /// SQLite at once, `releaseLeftLeases`; with PostgreSQL when their lease ends), then a
    /// drain.
    public func start() {
        schedule.run { [self] in
            do {
                try await outbox.releaseLeftLeases()
            } catch {
                Log.warn("could not give back the Web Push messages the last run left claimed; they go when their lease ends",
                         ["error": String(describing: error)])
            }
            kick()
        }
    }

    /// Drains soon: after the current event is handled.
    public func kick() {
        schedule.kick()
    }

    /// Stops for good: what is in flight stays in the outbox, due again at once for the next
    /// start (its leases given back before this returns).
    public func stop() async {
        schedule.stop()
        let unanswered = Array(sending)
        guard !unanswered.isEmpty else { return }
        do {
            try await outbox.release(unanswered)
        } catch {
            Log.warn("could not give back the Web Push messages in flight; they go again when their lease ends",
                     ["error": String(describing: error)])
        }
    }

    private func drain() async {
        // One reading of the clock for the whole drain (`WebPushOutbox.nextDue(after:)`).
        let now = clock.wallMillis
        do {
            let free = Self.maxInFlight - sending.count
            if free > 0 {
                for due in try await outbox.claimDue(limit: free, now: now) { try await send(due) }
            }
            if let next = try await outbox.nextDue(after: now) { schedule.wake(at: next) }
        } catch {
            Log.warn("could not read the Web Push outbox; trying again", ["error": String(describing: error)])
            schedule.arm(at: clock.wallMillis + Self.storeRetry.milliseconds)
        }
    }

    private func send(_ due: WebPushOutbox.Due) async throws {
        let job = due.job
        guard let subscription = due.subscription else {
            // Deleted, replaced by the browser's newer subscription, or its account's.
            try await outbox.finish(job)
            return
        }
        let now = clock.wallMillis
        guard job.expiresAt > now else {
            try await outbox.finish(job)
            counts?.count(kind: job.kind.rawValue, outcome: "expired")
            return
        }
        let endpoint: PushEndpoint
        do {
            endpoint = try PushEndpoint(subscription.endpoint)
        } catch {
            try await outbox.finish(job)
            counts?.count(kind: job.kind.rawValue, outcome: "refused")
            Log.warn("a Web Push subscription's endpoint is not one a push can go to; dropped",
                     ["subscription_id": subscription.id, "reason": error.reason])
            return
        }
        guard let subscriber = P256.PublicKey(uncompressed: subscription.p256dh),
              let body = try? WebPushMessage.encrypt(job.payload, paddedLength: Self.paddedLength(job.payload.count),
                                                     subscriber: subscriber, authSecret: subscription.auth),
              let authorization = try vapidToken().authorization(for: endpoint.origin) else {
            try await outbox.finish(job)
            counts?.count(kind: job.kind.rawValue, outcome: "refused")
            Log.warn("a Web Push message could not be encrypted or signed; dropped", ["subscription_id": subscription.id])
            return
        }
        let request = PushRequest(endpoint: endpoint, ttl: Int((job.expiresAt - now) / 1000),
                                  urgency: PushRequest.Urgency(rawValue: job.urgency.rawValue) ?? .normal,
                                  topic: job.topic.map(PushRequest.topic(for:)), body: body)
        sending.insert(job.id)
        sender.send(request, authorization: authorization) { [weak self] result in
            guard let self else { return }
            schedule.run { [self] in await finished(job, endpoint: subscription.endpoint, result) }
        }
    }

    /// Padded to a multiple of 256 bytes, so the size of a message tells less of its texts.
    static func paddedLength(_ count: Int) -> Int {
        min((count + 255) / 256 * 256, WebPushMessage.maxPaddedLength)
    }

    private func vapidToken() throws -> VAPIDToken {
        if let vapid { return vapid }
        let made = VAPIDToken(key: try key(), subject: subject, clock: clock)
        vapid = made
        return made
    }

    private func finished(_ job: WebPushJob, endpoint: String, _ result: PushDelivery.Result) async {
        sending.remove(job.id)
        guard !schedule.stopped else { return }
        let kind = job.kind.rawValue
        do {
            switch result {
            case .answered(let answer):
                switch answer.verdict {
                case .delivered:
                    try await outbox.finish(job)
                    counts?.count(kind: kind, outcome: "sent")
                case .gone:
                    try await outbox.subscriptionIsGone(job, endpoint: endpoint)
                    counts?.count(kind: kind, outcome: "gone")
                    Log.info("a push service says a Web Push subscription ended; it is removed",
                             Self.fields(job, status: answer.status))
                case .tooLarge:
                    try await outbox.finish(job)
                    counts?.count(kind: kind, outcome: "too_large")
                    Log.error("a push service refused a Web Push message as too large (a defect of this server)",
                              Self.fields(job, status: answer.status))
                case .retry:
                    counts?.count(kind: kind, outcome: answer.status == 429 ? "rate_limited" : "service_error")
                    try await retryOrDrop(job, after: answer.retryAfterSeconds, Self.fields(job, status: answer.status))
                case .refused:
                    try await outbox.finish(job)
                    counts?.count(kind: kind, outcome: "refused")
                    Log.warn("a push service refused a Web Push message", Self.fields(job, status: answer.status))
                }
            case .failed(let reason):
                counts?.count(kind: kind, outcome: "unreachable")
                try await retryOrDrop(job, after: nil, Self.fields(job, status: nil, reason: reason))
            case .blocked(let reason):
                try await outbox.finish(job)
                counts?.count(kind: kind, outcome: "blocked")
                Log.warn("a Web Push endpoint points at a private address; not sent",
                         Self.fields(job, status: nil, reason: reason))
            }
        } catch {
            Log.warn("could not record a Web Push result", ["error": String(describing: error)])
            schedule.arm(at: clock.wallMillis + Self.storeRetry.milliseconds)
        }
        kick()
    }

    /// Again after `Retry-After` when given, else after the backoff; dropped when that is past
    /// the message's expiry.
    private func retryOrDrop(_ job: WebPushJob, after retryAfter: Int64?, _ fields: KeyValuePairs<String, String>) async throws {
        let backoff = DrainSchedule.backoff(attempts: job.attempts, first: Self.firstRetryDelayMillis, most: Self.maxRetryDelayMillis)
        let delay = retryAfter.map { max($0, 1) * 1000 } ?? backoff
        let at = clock.wallMillis + delay
        guard at < job.expiresAt else {
            try await outbox.finish(job)
            Log.warn("a Web Push message could not be sent before it expired; dropped", fields)
            return
        }
        try await outbox.retry(job, at: at)
        Log.info("a Web Push message failed; trying again later", fields)
    }

    /// What a log line says of a push: never the endpoint (it is a credential of the browser's)
    /// or the payload.
    static func fields(_ job: WebPushJob, status: Int?, reason: String? = nil) -> KeyValuePairs<String, String> {
        [
            "kind": job.kind.rawValue, "subscription_id": job.subscriptionID, "status": status.map(String.init) ?? "-",
            "reason": reason ?? "-", "attempts": String(job.attempts + 1),
        ]
    }
}
