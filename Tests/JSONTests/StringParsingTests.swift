import Testing
@testable import JSON

@Suite struct StringParsingTests {
    private func parse(_ bytes: [UInt8]) -> Result<JSON, JSONParseError> {
        Result { () throws(JSONParseError) -> JSON in try JSONParser.parse(bytes) }
    }

    @Test func decodesEveryEscape() throws {
        let value = try JSONParser.parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\uD83D\uDE00\u0000""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\t\u{41}\u{E9}\u{20AC}\u{1F600}\u{0}"))
    }

    @Test func keepsRawUTF8AsIs() throws {
        #expect(try JSONParser.parse("[\"é€😀\", \"\u{7F}\", \"\u{10FFFF}\"]") == ["é€😀", "\u{7F}", "\u{10FFFF}"])
    }

    @Test func rejectsLoneSurrogate() {
        #expect(throws: JSONParseError(.loneSurrogate, at: 3)) { try JSONParser.parse(#"["x\uD800"]"#) }
        #expect(throws: JSONParseError(.loneSurrogate, at: 1)) { try JSONParser.parse(#""\uDC00\uD800""#) }
        #expect(throws: JSONParseError(.loneSurrogate, at: 1)) { try JSONParser.parse(#""\uD800\u0041""#) }
        #expect(throws: JSONParseError(.invalidUnicodeEscape, at: 7)) { try JSONParser.parse(#""\uD800\uZZZZ""#) }
    }

    @Test func rejectsMalformedUTF8() {
        let cases: [([UInt8], Int)] = [
            ([0x22, 0xC0, 0xAF, 0x22], 1),                 // overlong "/"
            ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),           // overlong, three bytes
            ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1),     // overlong, four bytes
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),           // encoded surrogate U+D800
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),     // U+110000
            ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),
            ([0x22, 0x61, 0x80, 0x22], 2),                 // stray continuation
            ([0x22, 0xE2, 0x82, 0x22], 1),                 // truncated
            ([0x22, 0xFF, 0x22], 1),
        ]
        for (bytes, offset) in cases {
            #expect(parse(bytes) == .failure(JSONParseError(.invalidUTF8, at: offset)))
        }
        #expect(parse([0x22, 0xE2, 0x82]) == .failure(JSONParseError(.unexpectedEnd, at: 3)))
    }

    @Test func acceptsBoundaryScalars() {
        let cases: [([UInt8], String)] = [
            ([0x22, 0xC2, 0x80, 0x22], "\u{80}"),
            ([0x22, 0xDF, 0xBF, 0x22], "\u{7FF}"),
            ([0x22, 0xE0, 0xA0, 0x80, 0x22], "\u{800}"),
            ([0x22, 0xED, 0x9F, 0xBF, 0x22], "\u{D7FF}"),
            ([0x22, 0xEE, 0x80, 0x80, 0x22], "\u{E000}"),
            ([0x22, 0xF0, 0x90, 0x80, 0x80, 0x22], "\u{10000}"),
            ([0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22], "\u{10FFFF}"),
        ]
        for (bytes, expected) in cases {
            #expect(parse(bytes) == .success(.string(expected)))
        }
    }

    /// The scanner reads eight bytes at a time; put each kind of special byte at every
    /// position around those word boundaries.
    @Test func findsSpecialBytesAtEveryAlignment() {
        for prefix in 0..<20 {
            for suffix in [0, 1, 7, 8, 9] {
                let before = String(repeating: "a", count: prefix)
                let after = String(repeating: "b", count: suffix)
                #expect(parse(Array("\"\(before)\\n\(after)\"".utf8)) == .success(.string(before + "\n" + after)))
                #expect(parse(Array("\"\(before)é\(after)\"".utf8)) == .success(.string(before + "é" + after)))
                #expect(parse(Array("\"\(before)\(after)\"".utf8)) == .success(.string(before + after)))
                #expect(parse(Array("\"\(before)\u{1F}\(after)\"".utf8))
                    == .failure(JSONParseError(.controlCharacterInString, at: prefix + 1)))
                #expect(parse(Array("\"\(before)".utf8) + [0xFF] + Array("\(after)\"".utf8))
                    == .failure(JSONParseError(.invalidUTF8, at: prefix + 1)))
                #expect(parse(Array("\"\(before)\(after)".utf8))
                    == .failure(JSONParseError(.unexpectedEnd, at: prefix + suffix + 1)))
            }
        }
    }

    @Test func parsesLongStringWithManyEscapes() throws {
        let piece = #"abc\"def\\ghi\u00e9\n"#
        let text = "\"" + String(repeating: piece, count: 10_000) + "\""
        let value = try JSONParser.parse(text)
        #expect(value.stringValue == String(repeating: "abc\"def\\ghié\n", count: 10_000))
    }

    @Test func acceptsNullEscapeInKey() throws {
        let value = try JSONParser.parse(#"{"a\u0000b": 1}"#)
        #expect(value.objectValue?.keys == ["a\u{0}b"])
    }
}
