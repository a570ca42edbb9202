import AppIntegrity
import EventLoop
import HTTP
import Relaydeck
import WebPush

/// What the route groups share: the domain services, the operator's settings, the loop, and
/// the parked calls. Loop thread only.
final class APIContext {
    let services: Services
    let configuration: APIConfiguration
    let loop: EventLoop
    let wakeups: Wakeups
    /// The challenges of `POST /v1/attest/challenge` not used yet, redeemed by `POST /v1/accounts`:
    /// in memory with SQLite, shared by the nodes with PostgreSQL.
    let challenges: any OneTimeChallenges
    /// App Attest's verifier; nil while the check is off (or, fail closed, when its root
    /// certificate cannot be read: account creation then answers 500).
    let attestVerifier: AppAttestVerifier?
    /// `overview.md#rate-limits`: messages in one hour from one sender (the account or a
    /// key), over `POST /v1/messages` and the MCP tool `send_message` alike.
    let messageLimiter: RateLimit
    /// `notify_user` calls in one hour for each key.
    let notifyLimiter: RateLimit
    /// With PostgreSQL, where the rate limits are counted (several nodes share them); nil
    /// with SQLite, whose one process counts in memory.
    let rateCells: RateCells?
    /// What every rate limit refused (`/metrics`).
    let limitRefusals = LimitRefusals()
    /// What a missing scope refused (`/metrics`).
    let scopeRefusals = ScopeRefusals()
    /// The event streams of each web session, ended with their session.
    let sessionStreams = SessionStreams()
    /// The activity entries of finished requests, written in batches.
    let activity: ActivityRecorder
    /// The open `GET /v1/events` streams (`EventRoutes`; `/metrics` counts them).
    let eventStreams = EventStreams()
    /// The request counters of `/metrics`, made once the router knows its routes.
    var requestMetrics: RequestMetrics?
    /// The HTTP server's open connections, for `/metrics` (the daemon sets it).
    var openConnections: (() -> Int)?
    /// Called after a deletion, so the purge of the rows starts soon.
    var onDeletion: (() -> Void)?
    /// Where a Web Push endpoint's name leads (a lookup off the loop); tests give their own.
    var pushHostCheck = PushHostCheck()
    /// The lookups of `pushHostCheck` not ended yet, bounded.
    let pushHostLookups = PushHostLookups()
    /// OAuth's Client ID Metadata Documents, fetched for `/oauth/authorize` (the daemon
    /// installs the fetch; tests give their own).
    let clientDocuments = ClientDocuments()

    init(services: Services, configuration: APIConfiguration, loop: EventLoop) {
        self.services = services
        self.configuration = configuration
        self.loop = loop
        wakeups = Wakeups(loop: loop)
        activity = ActivityRecorder(log: services.activity, loop: loop)
        attestVerifier = configuration.appAttest?.makeVerifier()
        rateCells = services.sqlite == nil ? RateCells(store: services.store, clock: services.clock) : nil
        challenges = services.challengeBook(.attest, local: ChallengeBook())
        messageLimiter = RateLimit(.messages, configuration: configuration, refusals: limitRefusals, cells: rateCells)
        notifyLimiter = RateLimit(.notify, configuration: configuration, refusals: limitRefusals, cells: rateCells)
        wakeups.scopeRefused = { [scopeRefusals] scope, surface in scopeRefusals.refused(scope, surface: surface) }
        services.oauthGrants.onRevoked = { [weak wakeups] keyID, grantID in wakeups?.grantRevoked(keyID: keyID, grantID: grantID) }
    }

    /// The client address a per-address limit counts (`overview.md#rate-limits`), after the
    /// trusted proxies; resolved only by the routes that have such a limit, so the hot path
    /// does not parse X-Forwarded-For.
    func client(of request: HTTPRequest) -> ClientKey {
        ClientKey.resolve(peer: request.peer, forwardedFor: request.head.headers("x-forwarded-for"),
                          trusted: configuration.trustedProxies)
    }

    /// Monotonic microseconds, for the rate limits.
    var nowMicros: Int64 { loop.now.nanoseconds / 1000 }
}
