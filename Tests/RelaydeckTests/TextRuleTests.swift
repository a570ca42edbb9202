import Relaydeck
import Testing

/// A text rule counts characters as a person does, and bounds what a character may cost.
@Suite struct TextRuleTests {
    private func message(_ rule: TextRule, _ text: String) -> String? {
        if case .failure(let problem) = rule.check(text) { return problem.message }
        return nil
    }

    /// The attack: one "character" of half a million code points.
    @Test func oneCharacterOfHalfAMillionCombiningMarksIsRefused() {
        let zalgo = "e" + String(repeating: "\u{0301}", count: 500_000)
        #expect(zalgo.count == 1)
        #expect(message(.keyLabel, zalgo) == "Must not contain a character of more than 32 code points.")
    }

    /// Forty characters each just under the code point bound, in four-byte marks: few
    /// characters, many bytes.
    @Test func fortyHeavyCharactersAreRefusedByTheirBytes() {
        let heavy = "a" + String(repeating: "\u{1D167}", count: 31)
        let text = String(repeating: heavy, count: 40)
        #expect(text.count == 40)
        #expect(text.utf8.count == 5_000)
        #expect(message(.keyLabel, text) == "Must be at most 2,560 bytes.")
    }

    @Test func aLongTextIsRefusedForItsLengthFirst() {
        #expect(message(.keyLabel, String(repeating: "x", count: 1_000_000)) == "Must be 1 to 40 characters.")
    }

    @Test func aCharacterOfMoreThanThirtyTwoCodePointsIsRefused() {
        let heavy = "e" + String(repeating: "\u{0301}", count: 32)
        #expect(message(.keyLabel, heavy) == "Must not contain a character of more than 32 code points.")
        let stackedButReal = "e" + String(repeating: "\u{0301}", count: 31)
        #expect(message(.keyLabel, stackedButReal) == nil)
    }

    /// Forty of the longest real characters (a family with skin tones, a subdivision flag)
    /// fit the byte bound of a forty-character label.
    @Test(arguments: ["👩🏽‍👩🏽‍👧🏽‍👦🏽", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🧑🏿‍🤝‍🧑🏻", "ế", "한", "👍🏽"])
    func realTextOfFullLengthAlwaysFits(character: String) throws {
        let text = String(repeating: character, count: 40)
        #expect(text.count == 40)
        #expect(try TextRule.keyLabel.check(text).get().value == text)
    }

    @Test(arguments: ["\u{200B}", "\u{202E}", "\u{200B}\u{202E}\u{2060}", " \u{200B} ", "\u{FEFF}", "\u{3164}", "\u{00AD}\u{FE0F}"])
    func aLabelMadeOnlyOfInvisibleCharactersIsRefused(text: String) {
        #expect(message(.keyLabel, text) == "Must contain a visible character.")
    }

    @Test func invisibleCharactersBesideVisibleOnesAreKept() throws {
        #expect(try TextRule.keyLabel.check("a\u{200B}b").get().value == "a\u{200B}b")
        #expect(try TextRule.keyLabel.check("👩‍💻 work").get().value == "👩‍💻 work")
    }

    @Test func anOptionalTextMayBeEmpty() throws {
        let note = TextRule(characters: 0...140)
        #expect(try note.check("  ").get().value == "")
        #expect(try note.check("\u{200B}").get().value == "\u{200B}")
    }

    @Test func aMultiLineRuleKeepsItsLinesAndTheTrimmedOneItsInnerSpace() throws {
        let description = TextRule(characters: 0...20_000, oneLine: false)
        #expect(try description.check("# Plan\n\n- one\n- two\n").get().value == "# Plan\n\n- one\n- two\n")
        let answer = TextRule(characters: 1...1_000, oneLine: false, trimmed: true)
        #expect(try answer.check("  Staging,\n then prod \n").get().value == "Staging,\n then prod")
        #expect(message(description, "bell\u{0007}") == "Must not contain control characters.")
    }

    @Test func theBoundsAreWrittenAsTheContractWritesThem() {
        #expect(message(TextRule(characters: 0...20_000, oneLine: false), String(repeating: "x", count: 20_001))
            == "Must be 0 to 20,000 characters.")
        #expect(TextRule(characters: 0...20_000).maxBytes == 1_280_000)
    }
}
