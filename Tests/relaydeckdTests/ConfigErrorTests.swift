import Testing
@testable import relaydeckd

@Suite struct ConfigErrorTests {
    @Test func describesAsVariableColonMessage() {
        #expect(ConfigError("LISTEN", "expected host:port, [v6]:port or unix:/path").description
            == "LISTEN: expected host:port, [v6]:port or unix:/path")
    }

    @Test func quotesShortValuesAsTheyAre() {
        #expect(ConfigError.quoted("abc") == "\"abc\"")
        #expect(ConfigError.quoted("") == "\"\"")
        #expect(ConfigError.quoted("ünïcode ✓") == "\"ünïcode ✓\"")
    }

    @Test func escapesQuotesBackslashesAndControls() {
        #expect(ConfigError.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(ConfigError.quoted("a\nb\rc\td") == "\"a\\nb\\rc\\td\"")
        #expect(ConfigError.quoted("\u{1B}[31m\u{7F}\u{85}\u{2028}") == "\"\\u{1b}[31m\\u{7f}\\u{85}\\u{2028}\"")
    }

    @Test func truncatesTo64Characters() {
        let long = String(repeating: "x", count: 64)
        #expect(ConfigError.quoted(long) == "\"\(long)\"")
        #expect(ConfigError.quoted(long + "y") == "\"\(long)\"...")
        #expect(ConfigError.quoted(String(repeating: "é", count: 100)) == "\"\(String(repeating: "é", count: 64))\"...")
    }

    @Test func keepsEveryMessageOnOneLine() throws {
        let error = try #require(loadError(["LISTEN": "127.0.0.1:80\nLOG_LEVEL=debug"]))
        #expect(!error.description.contains("\n"))
        #expect(error.description == "LISTEN: port must be a number from 0 to 65535 (got \"127.0.0.1:80\\nLOG_LEVEL=debug\")")
    }
}
