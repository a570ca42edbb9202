import API
import APNs
import Clock
import Crypto
import EventLoop
import PushDispatch
import Logging
import Relaydeck
import TLS
import WebPush

/// The wiring of push (`push.md`): the planner on the hub, so every change writes its pushes
/// to the outbox in its own transaction; the APNs client; and the dispatcher that drains the
/// outbox through the client after each commit.
struct PushWiring {
    let client: APNsClient
    let dispatcher: PushDispatcher

    /// Installs push on `services` when `apns` is set (all four required settings); nil when
    /// push is off. Throws when the client cannot use the settings (the key is no P-256 key,
    /// the CA file does not load).
    /// `lease` is `PUSH_LEASE_SECONDS`' (milliseconds).
    static func install(_ apns: Config.APNs?, lease: Int64, services: Services, loop: EventLoop) throws -> PushWiring? {
        guard let apns else { return nil }
        let client = try APNsClient(configuration: configuration(apns), loop: loop)
        let clock = SystemClock.shared
        let planner = PushPlanner(settings: PushSettings(bundleID: apns.bundleID, watchBundleID: apns.watchBundleID),
                                  clock: clock)
        let dispatcher = PushDispatcher(loop: loop, clock: clock,
                                        outbox: Outbox(store: services.store, clock: clock, planner: planner, leaseMillis: lease),
                                        sender: client,
                                        counts: services.pushCounts.service("apns", outcomes: APNsResult.outcomes),
                                        lookAgainMillis: lookAgain(lease, services))
        // After the planning write's COMMIT (`afterWritesInFlight`), so the drain sees its jobs.
        planner.onPlanned = { [unowned dispatcher, store = services.store] in store.afterWritesInFlight { dispatcher.kick() } }
        services.hub.planners.append(planner)
        return PushWiring(client: client, dispatcher: dispatcher)
    }

    /// How often a dispatcher looks at its outbox without a kick: with PostgreSQL, every
    /// lease, for the jobs other nodes planned (a dead node's among them: they go within two
    /// leases of its claim); with SQLite never, its one process knowing every job.
    static func lookAgain(_ lease: Int64, _ services: Services) -> Int64? {
        services.sqlite == nil ? lease : nil
    }

    /// `check-config`: what the client would refuse at start (a key that is not P-256, a CA
    /// file that does not load), without connecting anywhere.
    static func check(_ apns: Config.APNs) throws {
        let loop = try EventLoop()
        let client = try APNsClient(configuration: configuration(apns), loop: loop)
        client.shutdown()
    }

    private static func configuration(_ apns: Config.APNs) -> APNsConfiguration {
        APNsConfiguration(
            teamID: apns.teamID, keyID: apns.keyID, privateKeyPEM: apns.privateKeyPEM,
            productionURL: apns.productionURL, sandboxURL: apns.sandboxURL, caFile: apns.caFile)
    }

    /// Sends what a previous run left in the outbox.
    func start() {
        dispatcher.start()
    }

    /// At the stop, before the store closes: nothing more is sent, and what was in flight
    /// stays in the outbox for the next start.
    func stop() async {
        await dispatcher.stop()
        client.shutdown()
    }
}

/// The wiring of Web Push (issue 21), on whatever else is set: the planner (on the hub from
/// the start, `Services`) kicks the dispatcher; the sender with the system's roots (and `WEB_PUSH_CA_FILE`'s), and the dispatcher that drains
/// the Web Push outbox after each commit.
struct WebPushWiring {
    let dispatcher: WebPushDispatcher

    static func install(_ config: Config, services: Services, loop: EventLoop) throws -> WebPushWiring {
        let clock = SystemClock.shared
        let planner = services.webPushPlanner
        let tls = try TLSClientContext(extraCAFile: config.webPushCAFile)
        let sender = WebPushSender(loop: loop, tls: tls, allowsPrivateHosts: config.webPushAllowPrivateHosts)
        let subscriptions = services.webPush
        let lease = Int64(config.pushLeaseMillis)
        let dispatcher = WebPushDispatcher(
            loop: loop, clock: clock, outbox: WebPushOutbox(store: services.store, clock: clock, leaseMillis: lease),
            sender: sender, key: { [unowned loop] in try vapidKey(subscriptions, loop: loop) }, subject: config.webPushContact,
            counts: services.pushCounts.service("webpush", kinds: PushCounts.webPushKinds,
                                                outcomes: WebPushDispatcher.outcomes),
            lookAgainMillis: PushWiring.lookAgain(lease, services))
        // After the planning write's COMMIT (`afterWritesInFlight`), so the drain sees its jobs.
        planner.onPlanned = { [unowned dispatcher, store = services.store] in store.afterWritesInFlight { dispatcher.kick() } }
        if let problem = config.webPushContactProblem {
            Log.warn("Safari's push service (iPhone, iPad, Mac) refuses this Web Push contact; set WEB_PUSH_SUBJECT to a mailto: address or an https: URL of a public name",
                     ["contact": config.webPushContact, "reason": problem])
        }
        return WebPushWiring(dispatcher: dispatcher)
    }

    func start() { dispatcher.start() }
    func stop() async { await dispatcher.stop() }

    /// The VAPID key for the dispatcher, which signs on the loop's synchronous path: the key
    /// read at the start (`Daemon.makeVAPIDKey`) or since, else read now on a task, which with
    /// SQLite has ended when `startTask` returns. A key not read yet fails this drain, and the
    /// dispatcher tries again.
    private static func vapidKey(_ subscriptions: WebPushSubscriptions, loop: EventLoop) throws -> P256.PrivateKey {
        if let key = subscriptions.keptVAPIDKey { return key }
        var failure: (any Error)?
        loop.startTask {
            do { _ = try await subscriptions.vapidKey() } catch { failure = error }
        }
        if let key = subscriptions.keptVAPIDKey { return key }
        throw failure ?? StoreError.unavailable(retryAfterSeconds: Store.retryAfterSeconds)
    }
}
