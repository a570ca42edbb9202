import Relaydeck
import Testing

@Suite struct TextRulesTests {
    @Test(arguments: [
        ("Cursor", "Cursor"),
        ("  Claude Code  ", "Claude Code"),
        ("Claude\n\n\tCode", "Claude Code"),
        ("a\r\nb", "a b"),
        ("\t lead and trail \n", "lead and trail"),
        ("no\u{00A0}break", "no break"),
        ("em\u{2003}\u{2003}space", "em space"),
        ("line\u{2028}separator", "line separator"),
        ("", ""),
        (" \n\t ", ""),
        ("é👍🏽", "é👍🏽"),
    ])
    func oneLineTrimsAndFoldsWhiteSpaceRuns(input: String, expected: String) {
        #expect(TextRules.oneLine(input) == expected)
    }

    @Test(arguments: ["a\u{0000}b", "bell\u{0007}", "esc\u{001B}[1m", "del\u{007F}", "c1\u{0080}", "c1\u{009F}", "nel\u{0085}"])
    func controlCharactersAreFound(text: String) {
        #expect(TextRules.hasControlCharacters(text))
    }

    /// White space (tab, newlines) is folded by `oneLine`, so it is not refused here; NEL is,
    /// as a C1 control.
    @Test(arguments: ["plain", "tab\there", "new\nline", "cr\rlf", "zero\u{200B}width", "é👍🏽", ""])
    func whiteSpaceAndPrintableTextHaveNoControlCharacters(text: String) {
        #expect(!TextRules.hasControlCharacters(text))
    }

    @Test func lengthCountsGraphemeClusters() {
        #expect(TextRules.length("abc") == 3)
        #expect(TextRules.length("e\u{0301}") == 1)
        #expect(TextRules.length("👍🏽") == 1)
        #expect(TextRules.length("🇫🇷🇩🇪") == 2)
        #expect(TextRules.length("👩‍👩‍👧") == 1)
        #expect(TextRules.length("") == 0)
    }

    @Test func hostNameIsTrimmedOfSpacesAndTabs() {
        #expect(TextRules.hostName(" \tstudio-mac \t") == "studio-mac")
        #expect(TextRules.hostName("studio mac") == "studio mac")
        #expect(TextRules.hostName("~!@#$%^&*()") == "~!@#$%^&*()")
    }

    @Test func hostNameAcceptsOneToSixtyFourCharacters() {
        let longest = String(repeating: "h", count: 64)
        #expect(TextRules.hostName("h") == "h")
        #expect(TextRules.hostName(longest) == longest)
        #expect(TextRules.hostName("  " + longest + "  ") == longest)
        #expect(TextRules.hostName(longest + "h") == nil)
    }

    @Test(arguments: ["", "   ", "\t\t", "in\tside", "new\nline", "del\u{007F}", "nul\u{0000}", "studio-mäc", "mac👍"])
    func hostNameRefusesEmptyControlAndNonASCII(raw: String) {
        #expect(TextRules.hostName(raw) == nil)
    }
}
