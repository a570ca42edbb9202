import Testing
@testable import Crypto

@Suite struct SecureRandomTests {
    @Test func returnsTheRequestedNumberOfBytes() {
        #expect(SecureRandom.bytes(0).count == 0)
        #expect(SecureRandom.bytes(1).count == 1)
        #expect(SecureRandom.bytes(4096).count == 4096)
        #expect(SecureRandom.bytes(-5).count == 0)
    }

    @Test func givesDifferentBytesEachCall() {
        // Two equal 32-byte draws have probability 2^-256.
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a != b)
    }

    @Test func fillsTheWholeBuffer() {
        // A zero byte at a fixed place has probability 1/256 per draw; 16 draws all zero there
        // would mean the tail was never written.
        var sawNonZeroAtEnd = false
        for _ in 0..<16 {
            var buffer = [UInt8](repeating: 0, count: 1000)
            buffer.withUnsafeMutableBytes { SecureRandom.fill($0) }
            if buffer[999] != 0 { sawNonZeroAtEnd = true }
        }
        #expect(sawNonZeroAtEnd)
    }

    @Test func alphanumericHasTheRequestedLengthAndAlphabet() {
        let allowed = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for count in [0, 1, 36, 300, 1000] {
            let text = SecureRandom.alphanumeric(count)
            #expect(text.utf8.count == count)
            #expect(text.utf8.allSatisfy { allowed.contains($0) })
        }
        #expect(SecureRandom.alphanumeric(-1) == "")
    }

    @Test func alphanumericUsesEveryCharacterRoughlyEvenly() {
        // 62,000 characters: each expected 1,000 times (sd about 31). A modulo-biased
        // generator would give the first 8 characters about 1,032 and the rest about 992,
        // too close to see here, but a broken mapping (a missing or doubled character) is far
        // outside 800...1200.
        var counts: [UInt8: Int] = [:]
        for byte in SecureRandom.alphanumeric(62_000).utf8 { counts[byte, default: 0] += 1 }
        #expect(counts.count == 62)
        #expect(counts.values.allSatisfy { (800...1200).contains($0) })
    }

    @Test func alphanumericDiffersBetweenCalls() {
        #expect(SecureRandom.alphanumeric(32) != SecureRandom.alphanumeric(32))
    }
}
