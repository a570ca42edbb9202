@testable import API
import Testing

/// The generic cell rate algorithm: a burst of the whole allowance, then one request per
/// interval, with an exact Retry-After. Times are microseconds.
@Suite struct RateLimiterTests {
    private static let minute: Int64 = 60_000_000
    private static let start: Int64 = 1_000_000_000

    @Test func aBurstOfTheLimitPassesAndTheNextIsLimited() {
        var limiter = RateLimiter(limit: 5, periodMicros: Self.minute)
        for _ in 0..<5 {
            #expect(limiter.take("a", now: Self.start) == .allowed)
        }
        #expect(limiter.take("a", now: Self.start) == .limited(retryAfterSeconds: 12))
        // A refused request uses nothing up.
        #expect(limiter.take("a", now: Self.start) == .limited(retryAfterSeconds: 12))
    }

    @Test func retryAfterIsTheWaitRoundedUpToWholeSeconds() {
        var limiter = RateLimiter(limit: 5, periodMicros: Self.minute)
        for _ in 0..<5 { _ = limiter.take("a", now: Self.start) }
        #expect(limiter.take("a", now: Self.start + 1) == .limited(retryAfterSeconds: 12))
        #expect(limiter.take("a", now: Self.start + 1_000_000) == .limited(retryAfterSeconds: 11))
        #expect(limiter.take("a", now: Self.start + 11_000_001) == .limited(retryAfterSeconds: 1))
        #expect(limiter.take("a", now: Self.start + 11_999_999) == .limited(retryAfterSeconds: 1))
        #expect(limiter.take("a", now: Self.start + 12_000_000) == .allowed)
        #expect(limiter.take("a", now: Self.start + 12_000_000) == .limited(retryAfterSeconds: 12))
    }

    @Test func theAllowanceRefillsWithTime() {
        var limiter = RateLimiter(limit: 5, periodMicros: Self.minute)
        for _ in 0..<5 { _ = limiter.take("a", now: Self.start) }
        // Half the period gives back half the burst (rounded down), the whole period all of it.
        let half = Self.start + 30_000_000
        #expect(limiter.take("a", now: half) == .allowed)
        #expect(limiter.take("a", now: half) == .allowed)
        #expect(limiter.take("a", now: half) == .limited(retryAfterSeconds: 6))
        let later = half + Self.minute
        for _ in 0..<5 {
            #expect(limiter.take("a", now: later) == .allowed)
        }
        #expect(limiter.take("a", now: later) == .limited(retryAfterSeconds: 12))
    }

    @Test func keysAreCountedApart() {
        var limiter = RateLimiter(limit: 1, periodMicros: Self.minute)
        #expect(limiter.take("a", now: Self.start) == .allowed)
        #expect(limiter.take("b", now: Self.start) == .allowed)
        #expect(limiter.take("a", now: Self.start) == .limited(retryAfterSeconds: 60))
        #expect(limiter.take("b", now: Self.start + 59_000_000) == .limited(retryAfterSeconds: 1))
    }

    /// A limit that does not divide the period must still allow exactly `limit` at once.
    @Test(arguments: [7, 600, 9_999, 999_999])
    func theBurstIsExactlyTheLimit(limit: Int) {
        var limiter = RateLimiter(limit: limit, periodMicros: Self.minute)
        var allowed = 0
        while limiter.take("a", now: Self.start) == .allowed, allowed <= limit {
            allowed += 1
        }
        #expect(allowed == limit)
    }

    @Test func aHighLimitIsNotCappedByTheClockResolution() {
        var limiter = RateLimiter(limit: 1_000_000, periodMicros: Self.minute)
        var allowed = 0
        // 60 µs per request: a second of steady traffic at 16,666 a second passes.
        for step in 0..<16_666 where limiter.take("a", now: Self.start + Int64(step) * 60) == .allowed {
            allowed += 1
        }
        #expect(allowed == 16_666)
    }

    @Test func sweepForgetsKeysWithAFullAllowanceOnly() {
        var limiter = RateLimiter(limit: 5, periodMicros: Self.minute)
        _ = limiter.take("refilled", now: Self.start)
        for _ in 0..<5 { _ = limiter.take("busy", now: Self.start) }
        #expect(limiter.trackedCount == 2)
        limiter.sweep(now: Self.start + 12_000_000)
        #expect(limiter.trackedCount == 1)
        // The busy key kept its state: it is still limited.
        #expect(limiter.take("busy", now: Self.start + 12_000_000) == .allowed)
        #expect(limiter.take("busy", now: Self.start + 12_000_000) == .limited(retryAfterSeconds: 12))
        limiter.sweep(now: Self.start + 2 * Self.minute)
        #expect(limiter.trackedCount == 0)
    }

    @Test func aFullTableRefusesNewKeysUntilOldOnesRefill() {
        var limiter = RateLimiter(limit: 2, periodMicros: Self.minute, capacity: 2)
        #expect(limiter.take("a", now: Self.start) == .allowed)
        #expect(limiter.take("b", now: Self.start) == .allowed)
        #expect(limiter.take("c", now: Self.start) == .limited(retryAfterSeconds: 60))
        // Known keys go on as before.
        #expect(limiter.take("a", now: Self.start) == .allowed)
        #expect(limiter.take("a", now: Self.start) == .limited(retryAfterSeconds: 30))
        // Once "b" has its whole allowance back, the sweep frees its place.
        #expect(limiter.take("c", now: Self.start + 30_000_000) == .allowed)
        #expect(limiter.trackedCount == 2)
    }

    @Test func aLimitBelowOneCountsAsOne() {
        var limiter = RateLimiter(limit: 0, periodMicros: Self.minute)
        #expect(limiter.take("a", now: Self.start) == .allowed)
        #expect(limiter.take("a", now: Self.start) == .limited(retryAfterSeconds: 60))
    }
}
