import HTTP
import Relaydeck

/// `overview.md#health`: for monitors and load balancers; no credential.
struct HealthRoutes: RouteGroup {
    private let store: any SessionStore

    init(_ context: APIContext) {
        store = context.services.store
    }

    var routes: [Route] {
        [Route("/health", [Endpoint(.get, .immediate { _ in .respond(health()) })])]
    }

    /// `no-cache`: a cache may keep the answer but must ask again before it uses it, so a
    /// monitor behind one never sees an old "ok".
    func health() -> HTTPResponse {
        if store.isHealthy() {
            return .json(200, Self.healthyBody, headers: [("Cache-Control", "no-cache")])
        }
        return .json(503, Self.unhealthyBody, headers: [("Cache-Control", "no-cache"), ("Retry-After", String(Store.retryAfterSeconds))])
    }

    static let healthyBody = Array(#"{"status":"ok","store":"ok"}"#.utf8)
    static let unhealthyBody = Array(#"{"status":"unavailable","store":"unavailable"}"#.utf8)
}
