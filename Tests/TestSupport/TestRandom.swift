import Relaydeck

/// SplitMix64: a tiny seeded generator, the same sequence on every machine, so random test
/// inputs reproduce.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A SplitMix64 stream from a fixed seed as the server's random source: IDs and secrets come
/// out the same in every run, and look random enough that nothing depends on a pattern in them.
public final class SeededRandom: RandomSource {
    private var generator: SplitMix64

    public init(seed: UInt64 = 0x5EED) {
        generator = SplitMix64(seed: seed)
    }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in buffer.indices {
            buffer[index] = UInt8(truncatingIfNeeded: generator.next())
        }
    }
}

/// Hands out the given bytes in order, over and over, for tests that pin the exact text of
/// an ID or a secret.
public final class ScriptedRandom: RandomSource {
    private let script: [UInt8]
    private var position = 0

    public init(_ script: [UInt8]) {
        precondition(!script.isEmpty)
        self.script = script
    }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in buffer.indices {
            buffer[index] = script[position]
            position = (position + 1) % script.count
        }
    }
}
