/// How much of the loop thread's CPU its turns take: a histogram of turns by CPU time and the
/// longest one. A turn is one iteration of `EventLoop.runOnce` (its events, its phases, its
/// timers), measured from the end of the one before, so the wait for events is in it too (a
/// few microseconds of CPU, whatever the wait's length). CPU time rather than wall time: a
/// turn that waited for a core while other programs ran is not long by its own doing, and
/// what this shows is whether one client can hold the loop (`turnBudget`, `Limits`).
public struct TurnCPU: Sendable, Equatable {
    /// The histogram's upper bounds, in microseconds: 1 ms, the turn budget (4 ms), then four
    /// times more each, to a second.
    public static let boundsMicros = [1_000, 4_000, 16_000, 64_000, 256_000, 1_024_000]

    /// Turns per bucket: `counts[k]` took at most `boundsMicros[k]` and more than the bound
    /// before; the last entry counts the turns above every bound.
    public private(set) var counts = [Int](repeating: 0, count: boundsMicros.count + 1)
    public private(set) var sumMicros = 0
    public private(set) var longestMicros = 0

    public init() {}

    public var turns: Int { counts.reduce(0, +) }

    mutating func record(nanoseconds: Int64) {
        let micros = Int(max(0, nanoseconds) / 1_000)
        var bucket = 0
        while bucket < Self.boundsMicros.count && micros > Self.boundsMicros[bucket] { bucket += 1 }
        counts[bucket] += 1
        sumMicros += micros
        longestMicros = max(longestMicros, micros)
    }
}
