import EventLoop
import Relaydeck

/// What the route groups share: the domain services, the operator's settings, the loop, and
/// the parked calls. Loop thread only.
final class APIContext {
    let services: Services
    let configuration: APIConfiguration
    let loop: EventLoop
    let wakeups: Wakeups
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
