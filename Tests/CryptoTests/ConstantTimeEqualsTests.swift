import Testing
@testable import Crypto

@Suite struct ConstantTimeEqualsTests {
    @Test func equalBytesAreEqual() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(constantTimeEquals([], []))
    }

    @Test func anyDifferingByteMakesThemUnequal() {
        let base: [UInt8] = Array(0..<32)
        for i in 0..<32 {
            var other = base
            other[i] ^= 0x01
            #expect(!constantTimeEquals(base, other), "byte \(i)")
        }
    }

    @Test func differentLengthsAreUnequal() {
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(!constantTimeEquals([], [0]))
    }
}
