#if canImport(Glibc)
import Glibc
#endif

/// Where every layer reads the time: the monotonic clock for deadlines, timers, rate limits
/// and retries (never goes back, ignores wall-clock jumps), and the wall clock for the
/// timestamps people see. Injected everywhere, so tests move time by hand.
public protocol Clock: AnyObject {
    /// Monotonic time.
    var now: Instant { get }
    /// Unix time in milliseconds (`created_at`, log lines, TOTP steps).
    var wallMillis: Int64 { get }
}

/// The system's clocks: CLOCK_MONOTONIC and CLOCK_REALTIME. The one place that calls
/// `clock_gettime`.
public final class SystemClock: Clock, Sendable {
    public init() {}

    /// One instance is enough for a process; it holds no state.
    public static let shared = SystemClock()

    public var now: Instant {
        Instant(nanoseconds: Self.read(CLOCK_MONOTONIC))
    }

    public var wallMillis: Int64 {
        Self.read(CLOCK_REALTIME) / 1_000_000
    }

    /// The CPU time the calling thread has used, in nanoseconds (CLOCK_THREAD_CPUTIME_ID): what
    /// the loop's turns are measured in, since time the thread waited for a core is not its own.
    public static func threadCPUNanoseconds() -> Int64 {
        read(CLOCK_THREAD_CPUTIME_ID)
    }

    private static func read(_ id: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// A clock that moves only when told to; both of its times move together.
public final class ManualClock: Clock {
    public var now: Instant
    public var wallMillis: Int64

    public init(start: Instant = Instant(nanoseconds: 1_000_000_000), wallMillis: Int64 = 1_760_000_000_000) {
        now = start
        self.wallMillis = wallMillis
    }

    public func advance(by span: TimeSpan) {
        now = now + span
        wallMillis += span.milliseconds
    }

    public func advance(millis: Int64) {
        advance(by: TimeSpan(nanoseconds: millis * 1_000_000))
    }
}
