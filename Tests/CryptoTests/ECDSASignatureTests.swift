import Testing
@testable import Crypto

@Suite struct ECDSASignatureTests {
    func der(_ r: [UInt8], _ s: [UInt8]) -> [UInt8] {
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
        return [0x30, UInt8(body.count)] + body
    }

    let r32 = (1...32).map { UInt8($0) }
    let s32 = (101...132).map { UInt8($0) }

    @Test func plainIntegersOf32BytesAreJoined() {
        #expect(ECDSASignature.raw(fromDER: der(r32, s32)) == r32 + s32)
    }

    @Test func theSignByteBeforeAHighBitIsDropped() {
        let high = [0x80] + [UInt8](repeating: 0xFF, count: 31)
        #expect(ECDSASignature.raw(fromDER: der([0] + high, [0] + high)) == high + high)
    }

    @Test func shortIntegersArePaddedWithLeadingZeros() {
        // r lost its leading zero byte in DER; s lost three.
        let shortR = Array(r32.dropFirst())
        let shortS: [UInt8] = [0x7F, 0x01]
        let raw = ECDSASignature.raw(fromDER: der(shortR, shortS))
        #expect(raw == [0] + shortR + [UInt8](repeating: 0, count: 30) + shortS)
        #expect(raw?.count == 64)
        // The value zero is one zero byte in DER.
        #expect(ECDSASignature.raw(fromDER: der([0], s32)) == [UInt8](repeating: 0, count: 32) + s32)
    }

    @Test func aLongFormSequenceLengthIsRead() {
        // P-521 sizes push the sequence past 127 bytes; the same parser with width 66.
        let r = [UInt8](repeating: 0x11, count: 66), s = [0] + [UInt8](repeating: 0x99, count: 66)
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
        let encoded = [0x30, 0x81, UInt8(body.count)] + body
        #expect(ECDSASignature.raw(fromDER: encoded, width: 66) == r + Array(s.dropFirst()))
        // The long form for a length that fits the short one is not DER.
        let small = der(r32, s32)
        #expect(ECDSASignature.raw(fromDER: [0x30, 0x81] + small.dropFirst()) == nil)
    }

    @Test func malformedSignaturesAreRefused() {
        let good = der(r32, s32)
        #expect(ECDSASignature.raw(fromDER: []) == nil)
        #expect(ECDSASignature.raw(fromDER: [0x31] + good.dropFirst()) == nil, "not a sequence")
        #expect(ECDSASignature.raw(fromDER: good + [0]) == nil, "trailing byte")
        #expect(ECDSASignature.raw(fromDER: Array(good.dropLast())) == nil, "truncated")
        #expect(ECDSASignature.raw(fromDER: der([0x80] + r32.dropFirst(), s32)) == nil, "negative r")
        #expect(ECDSASignature.raw(fromDER: der([0, 0x01] + r32.dropFirst(2), s32)) == nil, "needless leading zero")
        #expect(ECDSASignature.raw(fromDER: der([1] + r32, s32)) == nil, "33 bytes of value")
        #expect(ECDSASignature.raw(fromDER: der([], s32)) == nil, "empty integer")
        let body = [0x02, UInt8(r32.count)] + r32
        #expect(ECDSASignature.raw(fromDER: [0x30, UInt8(body.count)] + body) == nil, "no s")
    }
}
