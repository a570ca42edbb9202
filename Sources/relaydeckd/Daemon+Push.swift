import API
import APNs
import Clock
import EventLoop
import PushDispatch
import Relaydeck

/// The wiring of push (`push.md`): the planner on the hub, so every change writes its pushes
/// to the outbox in its own transaction, and the dispatcher that drains the outbox through
/// the APNs client after each commit.
enum PushWiring {
    /// Makes the sender for a loop: the APNs client for the configured settings.
    typealias SenderFactory = (EventLoop) throws -> any APNsSending

    /// Installs push on `services` when `config.apns` is set; nil when push is off.
    static func install(_ apns: Config.APNs?, services: Services, loop: EventLoop,
                        makeSender: SenderFactory?) throws -> PushDispatcher? {
        guard let apns, let makeSender else { return nil }
        let clock = SystemClock.shared
        let planner = PushPlanner(settings: PushSettings(bundleID: apns.bundleID, watchBundleID: apns.watchBundleID),
                                  clock: clock)
        let dispatcher = PushDispatcher(loop: loop, clock: clock,
                                        outbox: Outbox(store: services.store, clock: clock, planner: planner),
                                        sender: try makeSender(loop))
        planner.onPlanned = { [unowned dispatcher] in dispatcher.kick() }
        services.hub.planner = planner
        return dispatcher
    }
}
