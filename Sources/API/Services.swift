import Clock
import Relaydeck

/// The domain services the API calls, and the hub every committed change goes through.
public struct Services {
    /// The store every service reads and writes: SQLite's or PostgreSQL's.
    public let store: any SessionStore
    /// SQLite's store when it is the one: what only it has (the loop turn's group commit,
    /// the WAL's figures).
    public let sqlite: Store?
    public let clock: any Clock
    public let random: any RandomSource
    public let hub: EventHub
    public let accounts: Accounts
    public let keys: Keys
    public let tasks: Tasks
    public let inbox: Inbox
    public let authenticator: Authenticator
    public let questions: Questions
    public let devices: Devices
    public let liveActivities: LiveActivities
    public let activity: ActivityLog
    public let webSignIn: WebSignIn
    public let webPush: WebPushSubscriptions
    /// OAuth's clients and the grants of connectors (issue 24).
    public let oauthClients: OAuthClients
    public let oauthGrants: OAuthGrants
    /// How the pushes sent ended (`/metrics`); the push wiring adds its service.
    public let pushCounts = PushCounts()
    /// Web Push's planner, always on the hub: a browser needs no setting to subscribe. Its
    /// messages wait in the outbox until a dispatcher sends them (the daemon's wiring).
    public let webPushPlanner: WebPushPlanner

    /// The APNs planner, when APNs is set (`EventHub.planners`).
    public var push: PushPlanner? { hub.planners.lazy.compactMap { $0 as? PushPlanner }.first }

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource, hub: EventHub = EventHub()) {
        self.store = store
        sqlite = store as? Store
        self.clock = clock
        self.random = random
        self.hub = hub
        accounts = Accounts(store: store, clock: clock, random: random, hub: hub)
        keys = Keys(store: store, clock: clock, random: random, hub: hub)
        inbox = Inbox(store: store, clock: clock, random: random, hub: hub)
        tasks = Tasks(store: store, clock: clock, random: random, hub: hub, inbox: inbox)
        authenticator = Authenticator(store: store, credentials: store.credentials, clock: clock)
        questions = Questions(store: store, clock: clock, random: random, hub: hub, inbox: inbox)
        devices = Devices(store: store, clock: clock)
        liveActivities = LiveActivities(store: store, clock: clock)
        activity = ActivityLog(store: store, clock: clock, random: random)
        webSignIn = WebSignIn(store: store, clock: clock, random: random)
        webPush = WebPushSubscriptions(store: store, clock: clock)
        oauthClients = OAuthClients(store: store, clock: clock, random: random)
        oauthGrants = OAuthGrants(store: store, credentials: store.credentials, clock: clock, random: random)
        webPushPlanner = WebPushPlanner(clock: clock)
        hub.planners.append(webPushPlanner)
    }
}
