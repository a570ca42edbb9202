import Relaydeck
import TestSupport

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
