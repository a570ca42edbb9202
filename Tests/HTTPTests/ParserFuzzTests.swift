import Testing
import TestSupport
import HTTP

/// Mangled requests: whatever the parser answers, it answers the same however the bytes are
/// split, and it never traps.
@Suite struct ParserFuzzTests {
    static let alphabet: [UInt8] = Array("\r\n\0 \t:;,0123456789abcdefABCDEF-/?*Hh\u{7F}".utf8) + [0x80, 0xFF]

    @Test func answersTheSameForAnySplitOfMangledInput() {
        var random = SplitMix64(seed: 0xF0CC_ACC1A)
        var limits = HTTPParserLimits()
        limits.maxBodyBytes = 64
        limits.maxChunkLineBytes = 12
        limits.maxTrailerBytes = 24
        limits.maxHeadBytes = 160
        limits.maxRequestLineBytes = 40
        limits.maxHeaderCount = 4
        for round in 0..<3000 {
            var bytes = splitCases[round % splitCases.count].bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                let b = Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &random)]
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = b
                case 1: bytes.insert(b, at: at)
                default: bytes.remove(at: at)
                }
            }
            let whole = feed([bytes], limits: limits)
            var pieces: [[UInt8]] = []
            var i = 0
            while i < bytes.count {
                let n = Int.random(in: 1...9, using: &random)
                pieces.append(Array(bytes[i..<min(i + n, bytes.count)]))
                i += n
            }
            let split = feed(pieces, limits: limits)
            #expect(whole == split, "round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }
}
