import Logging
import Relaydeck

/// One of the server's rate limits as a request meets it (`overview.md#rate-limits`): with
/// SQLite, one process serves the store and counts in memory (`RateLimiter`); with
/// PostgreSQL, several nodes may share the database, and so the count (`RateCells`), which
/// the contract keeps per credential, per address or per sender, not per process. A class,
/// so that a request awaiting the database's count holds no access to it meanwhile.
final class RateLimit {
    private var local: RateLimiter
    private let cells: RateCells?
    private let rate: Limits.Rate
    private let refusals: LimitRefusals

    init(_ rate: Limits.Rate, configuration: APIConfiguration, refusals: LimitRefusals, cells: RateCells?) {
        local = RateLimiter(rate, configuration: configuration, refusals: refusals)
        self.cells = cells
        self.rate = rate
        self.refusals = refusals
    }

    /// Counts one request for `key` (`now`: monotonic microseconds, for the count in memory).
    /// A database that cannot count lets the request through: what it then asks of the store
    /// answers `503` by itself, and a limit must not add an outage of its own.
    func take(_ key: String, now: Int64) async -> RateLimiter.Decision {
        guard let cells else { return local.take(key, now: now) }
        let wait: Int?
        do {
            wait = try await cells.take(rate.name, subject: key, limit: local.limit, periodMicros: local.periodMicros)
        } catch {
            Log.warn("a rate limit could not be counted in the database; the request goes on",
                     ["limit": rate.name, "error": String(describing: error)])
            return .allowed
        }
        guard let wait else { return .allowed }
        refusals.refused(rate)
        return .limited(retryAfterSeconds: wait)
    }

    /// Counts one request for `key`, and throws the catalogue's refusal when it is over.
    func admit(_ key: String, now: Int64) async throws(APIError) {
        if case .limited(let seconds) = await take(key, now: now) {
            throw rate.refusal(retryAfter: seconds)
        }
    }
}

extension APIContext {
    /// The limit `rate` of this server: in memory, or in the database the nodes share.
    func rateLimit(_ rate: Limits.Rate) -> RateLimit {
        RateLimit(rate, configuration: configuration, refusals: limitRefusals, cells: rateCells)
    }
}
