import Testing
import TestSupport
@testable import JSON

/// Corpus files with random byte edits, from a fixed seed so a failure reproduces. Whatever
/// the parser makes of an edit, it must not crash, and what it accepts must survive a round
/// trip through the writer unchanged.
@Suite struct MutationTests {
    /// Bytes that steer edits into the interesting parts of the grammar.
    static let interesting: [UInt8] = Array(#"{}[]",:\u0123456789-+.eE tfn"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xED, 0xF4, 0xFF]

    /// `original` with one to three bytes replaced, removed or inserted, each one of the
    /// `interesting` bytes.
    static func mutated(_ original: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = original
        for _ in 0...Int.random(in: 0..<3, using: &random) {
            let byte = interesting.randomElement(using: &random) ?? 0
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = byte
            case 1 where !bytes.isEmpty:
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
            default:
                bytes.insert(byte, at: Int.random(in: 0...bytes.count, using: &random))
            }
        }
        return bytes
    }

    @Test func survivesRandomEditsOfValidFiles() throws {
        var random = SplitMix64(seed: 20_260_728)
        var accepted = 0
        var rejected = 0
        for name in Corpus.files("y_") {
            let original = Corpus.bytes(name)
            for _ in 0..<60 {
                let bytes = Self.mutated(original, using: &random)
                do {
                    let value = try JSONParser.parse(bytes)
                    accepted += 1
                    #expect(try JSONParser.parse(value.encoded()) == value, "\(name): \(bytes)")
                } catch {
                    rejected += 1
                    #expect(error.offset >= 0 && error.offset <= bytes.count, "\(name): \(bytes)")
                }
            }
        }
        // Both outcomes must actually occur, or the edits test nothing.
        #expect(accepted > 100)
        #expect(rejected > 1000)
    }

    @Test func survivesRandomBytes() {
        var random = SplitMix64(seed: 8259)
        for _ in 0..<20_000 {
            let count = Int.random(in: 1..<24, using: &random)
            let bytes = (0..<count).map { _ in Self.interesting.randomElement(using: &random) ?? 0 }
            if let value = try? JSONParser.parse(bytes) {
                #expect((try? JSONParser.parse(value.encoded())) == value, "\(bytes)")
            }
        }
    }
}
