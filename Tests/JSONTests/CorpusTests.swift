import Testing
@testable import JSON

/// Every file of nst/JSONTestSuite: `y_` accepted, `n_` rejected, `i_` as decided below.
@Suite struct CorpusTests {
    @Test func corpusIsPresent() {
        #expect(Corpus.files("y_").count == 95)
        #expect(Corpus.files("n_").count == 188)
        #expect(Corpus.files("i_").count == 35)
    }

    @Test(arguments: Corpus.files("y_"))
    func acceptsValidFile(_ name: String) {
        #expect(throws: Never.self) { try JSONParser.parse(Corpus.bytes(name)) }
    }

    @Test(arguments: Corpus.files("n_"))
    func rejectsInvalidFile(_ name: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Corpus.bytes(name)) }
    }

    /// Parse, write, parse again: the same value, and writing it again gives the same bytes.
    @Test(arguments: Corpus.files("y_"))
    func roundTripsValidFile(_ name: String) throws {
        let value = try JSONParser.parse(Corpus.bytes(name))
        let text = value.encoded()
        let again = try JSONParser.parse(text)
        #expect(again == value)
        #expect(again.encoded() == text)
    }

    /// The implementation-defined files and what this parser does with each. Huge and tiny
    /// numbers are valid grammar and accepted (`double` is nil past Double's range, zero below
    /// it); everything that is not well-formed UTF-8, lone surrogate escapes, byte order marks
    /// and nesting past the default 64 levels are rejected.
    static let implementationDefined: [String: JSONParseError?] = [
        "i_number_double_huge_neg_exp.json": nil,
        "i_number_huge_exp.json": nil,
        "i_number_neg_int_huge_exp.json": nil,
        "i_number_pos_double_huge_exp.json": nil,
        "i_number_real_neg_overflow.json": nil,
        "i_number_real_pos_overflow.json": nil,
        "i_number_real_underflow.json": nil,
        "i_number_too_big_neg_int.json": nil,
        "i_number_too_big_pos_int.json": nil,
        "i_number_very_big_negative_int.json": nil,
        "i_object_key_lone_2nd_surrogate.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_1st_surrogate_but_2nd_missing.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_1st_valid_surrogate_2nd_invalid.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_UTF-16LE_with_BOM.json": JSONParseError(.unexpectedByte(0xFF), at: 0),
        "i_string_UTF-8_invalid_sequence.json": JSONParseError(.invalidUTF8, at: 7),
        "i_string_UTF8_surrogate_U+D800.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_incomplete_surrogate_and_escape_valid.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_incomplete_surrogate_pair.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_incomplete_surrogates_escape_valid.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_invalid_lonely_surrogate.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_invalid_surrogate.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_invalid_utf-8.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_inverted_surrogates_U+1D11E.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_iso_latin_1.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_lone_second_surrogate.json": JSONParseError(.loneSurrogate, at: 2),
        "i_string_lone_utf8_continuation_byte.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_not_in_unicode_range.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_overlong_sequence_2_bytes.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_overlong_sequence_6_bytes.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_overlong_sequence_6_bytes_null.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_truncated-utf-8.json": JSONParseError(.invalidUTF8, at: 2),
        "i_string_utf16BE_no_BOM.json": JSONParseError(.unexpectedByte(0x00), at: 0),
        "i_string_utf16LE_no_BOM.json": JSONParseError(.unexpectedByte(0x00), at: 1),
        "i_structure_500_nested_arrays.json": JSONParseError(.depthLimitExceeded, at: 64),
        "i_structure_UTF-8_BOM_empty_object.json": JSONParseError(.byteOrderMark, at: 0),
    ]

    @Test func everyImplementationDefinedFileHasADecision() {
        #expect(Corpus.files("i_") == Self.implementationDefined.keys.sorted())
    }

    @Test(arguments: Corpus.files("i_"))
    func implementationDefinedFileGivesDecidedOutcome(_ name: String) {
        let expected = Self.implementationDefined[name] ?? nil
        let outcome: JSONParseError?
        do {
            _ = try JSONParser.parse(Corpus.bytes(name))
            outcome = nil
        } catch {
            outcome = error
        }
        #expect(outcome == expected)
    }
}
