import Testing
import TestSupport
@testable import JSON

/// `JSONParser.validate` must refuse exactly what `parse` refuses, with the same error: the API
/// answers `400` from the validator before the credential and parses in full only after it.
@Suite struct ValidatorTests {
    private func parsed(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    private func validated(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
        do {
            try JSONParser.validate(bytes, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: Corpus.files("y_") + Corpus.files("n_") + Corpus.files("i_"))
    func agreesWithTheParserOnCorpusFile(_ name: String) {
        let bytes = Corpus.bytes(name)
        #expect(validated(bytes) == parsed(bytes), "\(name)")
    }

    @Test func agreesWithTheParserOnRandomEditsOfCorpusFiles() {
        var random = SplitMix64(seed: 26)
        var accepted = 0
        var refused = 0
        for name in Corpus.files("y_") + Corpus.files("i_") {
            let original = Corpus.bytes(name)
            for _ in 0..<80 {
                let bytes = MutationTests.mutated(original, using: &random)
                let expected = parsed(bytes)
                #expect(validated(bytes) == expected, "\(name): \(bytes)")
                if expected == nil { accepted += 1 } else { refused += 1 }
            }
        }
        // Both outcomes must occur, or the comparison tests nothing.
        #expect(accepted > 100)
        #expect(refused > 1000)
    }

    @Test func agreesWithTheParserOnRandomBytes() {
        var random = SplitMix64(seed: 8259_26)
        var accepted = 0
        for _ in 0..<30_000 {
            let count = Int.random(in: 1..<24, using: &random)
            let bytes = (0..<count).map { _ in MutationTests.interesting.randomElement(using: &random) ?? 0 }
            let expected = parsed(bytes)
            #expect(validated(bytes) == expected, "\(bytes)")
            if expected == nil { accepted += 1 }
        }
        #expect(accepted > 100)
    }

    @Test func agreesOnEscapesSurrogatesAndUTF8() {
        let texts = [
            #""\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r""#, #""\ud83d""#, #""\ude00""#, #""\ud83d\u0041""#,
            #""\ud83d\""#, #""\u12""#, #""\x""#, #""\"#, #""abc"#, "\"\u{7F}\"",
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            #expect(validated(bytes) == parsed(bytes), "\(text)")
        }
        for bytes: [UInt8] in [[0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
                               [0x22, 0xE2, 0x82, 0xAC, 0x22], [0x22, 0x09, 0x22], [0xEF, 0xBB, 0xBF, 0x31], [0x20]] {
            #expect(validated(bytes) == parsed(bytes), "\(bytes)")
        }
    }

    @Test func agreesOnTheDepthBoundForEveryMaximum() {
        // Objects and arrays mixed, past 64 levels too (the validator's bits span words).
        for maxDepth in [0, 1, 2, 63, 64, 65, 127, 128, 129, 200] {
            for depth in [maxDepth - 1, maxDepth, maxDepth + 1] where depth > 0 {
                var text = ""
                for level in 0..<depth { text += level % 3 == 0 ? #"{"k":"# : "[" }
                text += "1"
                for level in (0..<depth).reversed() { text += level % 3 == 0 ? "}" : ",2]" }
                let bytes = Array(text.utf8)
                let expected = parsed(bytes, maxDepth: maxDepth)
                #expect(validated(bytes, maxDepth: maxDepth) == expected, "depth \(depth) of \(maxDepth)")
                #expect((expected == nil) == (depth <= maxDepth))
            }
        }
        let brackets = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(validated(brackets) == JSONParseError(.depthLimitExceeded, at: 64))
    }

    @Test func refusesMismatchedClosersLikeTheParser() {
        for text in [#"[1}"#, #"{"a":1]"#, #"[{"a":[1}]}"#, #"{"a":{"b":[]]}"#, "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "[1 2]"] {
            let bytes = Array(text.utf8)
            #expect(validated(bytes) != nil, "\(text)")
            #expect(validated(bytes) == parsed(bytes), "\(text)")
        }
    }

    /// The validator scans plain integers and one-byte escapes itself: each way a number or
    /// a string can end, continue or break, at the end of the text too, in every container.
    @Test func agreesOnNumbersAndStringsItScansItself() {
        let numbers = ["1", "12", "9", "10", "1.5", "12.", "1e5", "1E+5", "1e-", "12e", "1x", "01", "-1", "-", "0",
                       "00", "0.1", "1.2.3", "1ee5", "19a", "1 ", " 7 ", "123456789012345678901234567890"]
        let strings = [#""a""#, #""""#, #""\n""#, #""\q""#, #""\"#, #""\u00e9""#, #""\u00""#, #""abcdefghijklmnop""#,
                       #""abcdefgh\tijklmnop""#, "\"\u{E9}\"", "\"abcdefg\u{1}h\"", "\"abc", #""\\""#, #""\/\b\f\r\t\"""#]
        for item in numbers + strings {
            for text in [item, "[\(item)]", "[\(item),\(item)]", "{\"k\":\(item)}", "{\(item):1}", "[\(item)"] {
                let bytes = Array(text.utf8)
                #expect(validated(bytes) == parsed(bytes), "\(text)")
            }
        }
        #expect(validated(Array(#"[12.5e3,7,"a\nb"]"#.utf8)) == nil)
        #expect(validated(Array("[12x]".utf8)) != nil)
    }
}
