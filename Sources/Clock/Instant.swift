/// A point on the monotonic clock, in nanoseconds. Never goes back, ignores wall-clock jumps.
public struct Instant: Sendable, Comparable, Hashable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: Instant, b: TimeSpan) -> Instant { Instant(nanoseconds: a.nanoseconds &+ b.nanoseconds) }
    public static func - (a: Instant, b: Instant) -> TimeSpan { TimeSpan(nanoseconds: a.nanoseconds &- b.nanoseconds) }

    public var description: String { "\(nanoseconds)ns" }
}

/// A length of time, in nanoseconds.
public struct TimeSpan: Sendable, Comparable, Hashable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func milliseconds(_ value: Int) -> TimeSpan { TimeSpan(nanoseconds: Int64(value) * 1_000_000) }
    public static func seconds(_ value: Int) -> TimeSpan { TimeSpan(nanoseconds: Int64(value) * 1_000_000_000) }
    public static let zero = TimeSpan(nanoseconds: 0)

    public var milliseconds: Int64 { nanoseconds / 1_000_000 }

    /// Whole milliseconds, rounded up, so a wait never ends before its deadline.
    public var millisecondsRoundedUp: Int64 { (nanoseconds + 999_999) / 1_000_000 }

    public static func < (a: TimeSpan, b: TimeSpan) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: TimeSpan, b: TimeSpan) -> TimeSpan { TimeSpan(nanoseconds: a.nanoseconds + b.nanoseconds) }

    public var description: String { "\(Double(nanoseconds) / 1e6)ms" }
}
