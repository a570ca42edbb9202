#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time in Unix milliseconds, for the timestamps the contract shows. Injected so
/// tests can set it.
public protocol WallClock: AnyObject {
    var nowMillis: Int64 { get }
}

public final class SystemWallClock: WallClock {
    public init() {}

    public var nowMillis: Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

public final class ManualWallClock: WallClock {
    public var nowMillis: Int64

    public init(_ nowMillis: Int64 = 1_760_000_000_000) { self.nowMillis = nowMillis }

    public func advance(millis: Int64) { nowMillis += millis }
}
