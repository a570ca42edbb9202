import Relaydeck

/// A splitmix64 stream from a fixed seed: IDs and secrets come out the same in every run, and
/// look random enough that nothing depends on a pattern in them.
final class SeededRandom: RandomSource {
    private var state: UInt64

    init(seed: UInt64 = 0x5EED) {
        state = seed
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in buffer.indices {
            buffer[index] = UInt8(truncatingIfNeeded: next())
        }
    }

    private func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Hands out the given bytes in order, over and over, for tests that pin the exact text of
/// an ID or a secret.
final class ScriptedRandom: RandomSource {
    private let script: [UInt8]
    private var position = 0

    init(_ script: [UInt8]) {
        precondition(!script.isEmpty)
        self.script = script
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in buffer.indices {
            buffer[index] = script[position]
            position = (position + 1) % script.count
        }
    }
}
