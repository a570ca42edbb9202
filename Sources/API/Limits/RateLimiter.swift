/// "So many per period" for each key (a credential, a client address), with the generic cell
/// rate algorithm: one integer per key (the theoretical arrival time), a burst of the whole
/// allowance, and an exact `Retry-After`. Runs on the loop thread; time is monotonic
/// microseconds given by the caller (milliseconds are too coarse: 1,000,000 a minute is one
/// request every 60 µs).
struct RateLimiter {
    let limit: Int
    let periodMicros: Int64
    /// At most this many keys are tracked; a key that finds the table full after a sweep is
    /// refused (fail closed), so a flood of new addresses cannot grow memory without bound.
    let capacity: Int
    /// Where its refusals are counted (`/metrics`), if anywhere.
    let counting: (LimitRefusals, LimitRefusals.Limit)?
    /// Its limit in the catalogue (nil for a limiter a test makes by hand): the refusal of
    /// `admit`.
    let rate: Limits.Rate?
    private var arrivals: [String: Int64] = [:]
    private var insertsSinceSweep = 0
    private var lastSweep: Int64?

    init(limit: Int, periodMicros: Int64, capacity: Int = 100_000, counting: (LimitRefusals, LimitRefusals.Limit)? = nil) {
        self.limit = max(1, limit)
        self.counting = counting
        self.periodMicros = periodMicros
        self.capacity = capacity
        rate = nil
    }

    /// The limiter of `rate`, with the operator's count where a setting gives one: the one
    /// place a limiter of the server is made.
    init(_ rate: Limits.Rate, configuration: APIConfiguration, refusals: LimitRefusals) {
        limit = max(1, rate.count(in: configuration))
        periodMicros = rate.period.micros
        capacity = 100_000
        counting = (refusals, rate)
        self.rate = rate
    }

    private var interval: Int64 { max(1, periodMicros / Int64(limit)) }
    /// Room for `limit - 1` requests on top of the one at hand: exactly `limit` at once, also
    /// when `interval` was rounded down (`periodMicros - interval` would then allow one more).
    private var tolerance: Int64 { Int64(limit - 1) * interval }

    enum Decision: Equatable {
        case allowed
        case limited(retryAfterSeconds: Int)
    }

    /// Counts one request for `key` at `now`.
    mutating func take(_ key: String, now: Int64) -> Decision {
        let decision = decide(key, now: now)
        if case .limited = decision, let (refusals, limit) = counting { refusals.refused(limit) }
        return decision
    }

    /// Counts one request for `key` at `now`, and throws the catalogue's refusal when it is
    /// over the limit.
    mutating func admit(_ key: String, now: Int64) throws(APIError) {
        if case .limited(let seconds) = take(key, now: now) {
            throw rate?.refusal(retryAfter: seconds) ?? .rateLimited(retryAfter: seconds)
        }
    }

    private mutating func decide(_ key: String, now: Int64) -> Decision {
        let known = arrivals[key]
        if known == nil {
            insertsSinceSweep += 1
            // A full table is swept at most once a second: a flood of new addresses must
            // not make every request scan the whole table.
            if insertsSinceSweep >= 1024 || (arrivals.count >= capacity && lastSweep.map { now - $0 >= 1_000_000 } ?? true) {
                sweep(now: now)
            }
            if arrivals.count >= capacity {
                return .limited(retryAfterSeconds: Limits.tableFullRetryAfterSeconds)
            }
        }
        let arrival = max(known ?? now, now)
        let wait = arrival - now - tolerance
        if wait > 0 {
            return .limited(retryAfterSeconds: Int((wait + 999_999) / 1_000_000))
        }
        arrivals[key] = arrival + interval
        return .allowed
    }

    /// Forgets keys whose allowance is whole again: they are the same as unknown keys.
    mutating func sweep(now: Int64) {
        insertsSinceSweep = 0
        lastSweep = now
        arrivals = arrivals.filter { $0.value > now }
    }

    var trackedCount: Int { arrivals.count }
}
