@testable import Relaydeck
import TestSupport
import Testing

/// A text rule counts characters as a person does, and bounds what a character may cost.
@Suite struct TextRuleTests {
    private func message(_ rule: TextRule, _ text: String) -> String? {
        if case .failure(let problem) = rule.check(text) { return problem.message }
        return nil
    }

    /// The attack: one "character" of half a million code points, refused by its bytes before
    /// any scalar of it is read.
    @Test func oneCharacterOfHalfAMillionCombiningMarksIsRefusedByItsBytes() {
        let zalgo = "e" + String(repeating: "\u{0301}", count: 500_000)
        #expect(zalgo.count == 1)
        #expect(message(.keyLabel, zalgo) == "Must be at most 160 bytes of UTF-8 as sent.")
        #expect(message(.taskTitle, zalgo) == "Must be at most 800 bytes of UTF-8 as sent.")
    }

    /// Forty characters each just under the code point bound, in four-byte marks: few
    /// characters, many bytes.
    @Test func fortyHeavyCharactersAreRefusedByTheirBytes() {
        let heavy = "a" + String(repeating: "\u{1D167}", count: 31)
        let text = String(repeating: heavy, count: 40)
        #expect(text.count == 40)
        #expect(text.utf8.count == 5_000)
        #expect(message(.keyLabel, text) == "Must be at most 160 bytes of UTF-8 as sent.")
    }

    /// The bound is on the text as sent: a one-line title of a megabyte of spaces around one
    /// letter is refused, not folded to "a" first.
    @Test func theByteBoundIsOnTheTextAsSentBeforeWhiteSpaceIsFolded() throws {
        let padded = String(repeating: " ", count: 1_000_000) + "a"
        #expect(message(.taskTitle, padded) == "Must be at most 800 bytes of UTF-8 as sent.")
        let justUnder = String(repeating: " ", count: 799) + "a"
        #expect(try TextRule.taskTitle.check(justUnder).get().value == "a")
    }

    @Test func aDescriptionMayHaveExactlyItsByteBound() throws {
        let full = String(repeating: "é", count: 40_000)
        #expect(full.utf8.count == 80_000 && full.count == 40_000)
        #expect(message(.taskDescription, full) == "Must be 0 to 20,000 characters.")
        let atBound = String(repeating: "\u{1F44D}\u{1F3FD}", count: 10_000)
        #expect(atBound.utf8.count == 80_000)
        #expect(try TextRule.taskDescription.check(atBound).get().value == atBound)
        #expect(message(.taskDescription, atBound + "a") == "Must be at most 80,000 bytes of UTF-8 as sent.")
    }

    /// Every rule's bound is four bytes a character (the comment of `bytesPerCharacter` says why).
    @Test(arguments: [TextRule.keyLabel, .passkeyName, .questionPrompt, .questionOption, .typedAnswer, .notificationTitle,
                      .notificationBody, .taskTitle, .taskDescription, .statusNote, .messageText, .deviceDescription])
    func everyRuleHasFourBytesACharacter(rule: TextRule) {
        #expect(rule.bytes == rule.characters.upperBound * TextRule.bytesPerCharacter)
    }

    /// Prose in the scripts whose characters are the heaviest (Malayalam, Burmese, Khmer, Thai,
    /// Devanagari) fits the bound of a message up to three quarters of its characters.
    @Test(arguments: ["മലയാളം ദക്ഷിണേന്ത്യയിലെ ഒരു ഭാഷയാണ്", "မြန်မာနိုင်ငံသည် အရှေ့တောင်အာရှတွင် တည်ရှိသော နိုင်ငံတစ်ခု ဖြစ်သည်။",
                      "ភាសាខ្មែរ គឺជាភាសាផ្លូវការរបស់ប្រទេសកម្ពុជា", "ภาษาไทยเป็นภาษาที่มีวรรณยุกต์ ผู้ที่อยู่ที่นี่น่ารักมาก",
                      "भारत एक विशाल देश है जिसकी संस्कृति बहुत पुरानी और समृद्ध है। क्षत्रिय, स्त्री, द्वारा, प्रश्न"])
    func heavyScriptsFitThreeQuartersOfTheLength(sentence: String) throws {
        var text = ""
        while text.count < 1_500 { text += sentence + " " }
        text = String(text.prefix(1_499)) + "."
        #expect(text.count == 1_500)
        #expect(try TextRule.messageText.check(text).get().value == text)
    }

    /// The bytes first (no character is counted in a megabyte), then the characters.
    @Test func aLongTextIsRefusedForItsBytesFirstThenForItsLength() {
        #expect(message(.keyLabel, String(repeating: "x", count: 1_000_000)) == "Must be at most 160 bytes of UTF-8 as sent.")
        #expect(message(.keyLabel, String(repeating: "x", count: 41)) == "Must be 1 to 40 characters.")
    }

    @Test func aCharacterOfMoreThanThirtyTwoCodePointsIsRefused() {
        let heavy = "e" + String(repeating: "\u{0301}", count: 32)
        #expect(message(.keyLabel, heavy) == "Must not contain a character of more than 32 code points.")
        let stackedButReal = "e" + String(repeating: "\u{0301}", count: 31)
        #expect(message(.keyLabel, stackedButReal) == nil)
    }

    /// Real emoji are usable: a label with the longest ones (a family with skin tones, a
    /// subdivision flag) in it, and forty of the common ones.
    @Test(arguments: ["👩🏽‍👩🏽‍👧🏽‍👦🏽", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🧑🏿‍🤝‍🧑🏻"])
    func theLongestEmojiFitInALabel(character: String) throws {
        let text = "Deploy " + character + " " + character + " bot"
        #expect(try TextRule.keyLabel.check(text).get().value == text)
    }

    @Test(arguments: ["ế", "한", "😀", "é", "字"])
    func fortyCommonCharactersFitALabel(character: String) throws {
        let text = String(repeating: character, count: 40)
        #expect(text.count == 40)
        #expect(try TextRule.keyLabel.check(text).get().value == text)
    }

    /// U+0085 (NEXT LINE) is a C1 control: refused in every field, one-line or not.
    @Test(arguments: [TextRule.keyLabel, .taskTitle, .taskDescription, .messageText, .typedAnswer, .statusNote])
    func nextLineIsRefusedInEveryField(rule: TextRule) {
        #expect(message(rule, "one\u{0085}two") == "Must not contain control characters.")
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
        let note = TextRule(characters: 0...140, bytes: 560)
        #expect(try note.check("  ").get().value == "")
        #expect(try note.check("\u{200B}").get().value == "\u{200B}")
    }

    @Test func aMultiLineRuleKeepsItsLinesAndTheTrimmedOneItsInnerSpace() throws {
        let description = TextRule(characters: 0...20_000, bytes: 80_000, oneLine: false)
        #expect(try description.check("# Plan\n\n- one\n- two\n").get().value == "# Plan\n\n- one\n- two\n")
        let answer = TextRule(characters: 1...1_000, bytes: 4_000, oneLine: false, trimmed: true)
        #expect(try answer.check("  Staging,\n then prod \n").get().value == "Staging,\n then prod")
        #expect(message(description, "bell\u{0007}") == "Must not contain control characters.")
    }

    @Test func theBoundsAreWrittenAsTheContractWritesThem() {
        #expect(message(.taskDescription, String(repeating: "x", count: 20_001)) == "Must be 0 to 20,000 characters.")
        #expect(message(.taskDescription, String(repeating: "x", count: 80_001)) == "Must be at most 80,000 bytes of UTF-8 as sent.")
    }
}

/// `TextRule.checkPrintableASCII`, the one-pass reading of a printable ASCII text, gives what
/// the reading scalar by scalar gives, for every rule.
@Suite struct TextRuleASCIITests {
    static let rules: [TextRule] = [.keyLabel, .passkeyName, .webPushLabel, .questionPrompt, .questionOption, .typedAnswer,
                                    .notificationTitle, .notificationBody, .taskTitle, .taskDescription, .statusNote,
                                    .messageText]

    @Test func printableASCIIReadsAsTheScalarsRead() {
        var random = SplitMix64(seed: 20)
        // Spaces often, in runs and at the ends; letters, digits and punctuation.
        let pieces = [" ", " ", "  ", "a", "Z", "7", "~", "!", "-", "Write tests", "x y"]
        var texts = ["", " ", "   ", "a", " a", "a ", " a  b ", "a  b", "Benchmark task 1234", String(repeating: "w", count: 200),
                     String(repeating: "w", count: 201), String(repeating: " ", count: 300) + "v"]
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...12, using: &random)
            texts.append((0..<count).map { _ in pieces.randomElement(using: &random)! }.joined())
        }
        for rule in Self.rules {
            for text in texts where text.utf8.count <= rule.bytes {
                let fast = rule.checkPrintableASCII(text)
                #expect(fast == rule.checkScalars(text), "\(rule.characters) \(rule.oneLine) \(rule.trimmed): \"\(text)\"")
            }
        }
    }

    @Test(arguments: ["tab\there", "line\nbreak", "café", "del\u{7F}", "nul\u{0}", "\u{200B}x"])
    func anyOtherTextIsLeftToTheScalars(text: String) {
        #expect(TextRule.taskTitle.checkPrintableASCII(text) == nil)
    }
}
