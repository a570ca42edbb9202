import HTTP
import Relaydeck

extension APIHandler {
    /// `overview.md#health`
    func health() -> HTTPResponse {
        if services.store.isHealthy() {
            return .json(200, Self.healthyBody)
        }
        return .json(503, Self.unhealthyBody, headers: [("Retry-After", String(Store.retryAfterSeconds))])
    }

    static let healthyBody = Array(#"{"status":"ok","store":"ok"}"#.utf8)
    static let unhealthyBody = Array(#"{"status":"unavailable","store":"unavailable"}"#.utf8)
}
