import EventLoop
import Relaydeck

/// What the route groups share: the domain services, the operator's settings, the loop, and
/// the parked calls. Loop thread only.
final class APIContext {
    let services: Services
    let configuration: APIConfiguration
    let loop: EventLoop
    let wakeups: Wakeups
    /// `overview.md#rate-limits`: 60 messages in one hour from one sender (the account or a
    /// key), over `POST /v1/messages` and the MCP tool `send_message` alike.
    var messageLimiter = RateLimiter(limit: 60, periodMicros: 3_600_000_000)
    /// 30 `notify_user` calls in one hour for each key.
    var notifyLimiter = RateLimiter(limit: 30, periodMicros: 3_600_000_000)
    /// Called after a deletion, so the purge of the rows starts soon.
    var onDeletion: (() -> Void)?

    init(services: Services, configuration: APIConfiguration, loop: EventLoop) {
        self.services = services
        self.configuration = configuration
        self.loop = loop
        wakeups = Wakeups(loop: loop)
    }

    /// Monotonic microseconds, for the rate limits.
    var nowMicros: Int64 { loop.now.nanoseconds / 1000 }
}
