import Testing
@testable import relaydeckd

@Suite struct ConfigSyntaxTests {
    @Test func parsesDecimalsWithoutOverflow() {
        #expect(ConfigSyntax.decimal("0") == 0)
        #expect(ConfigSyntax.decimal("999999999") == 999_999_999)
        #expect(ConfigSyntax.decimal("1000000000") == nil)
        #expect(ConfigSyntax.decimal("") == nil)
        #expect(ConfigSyntax.decimal("12a") == nil)
    }

    @Test func parsesMilliseconds() {
        #expect(ConfigSyntax.milliseconds("10") == 10_000)
        #expect(ConfigSyntax.milliseconds("0.5") == 500)
        #expect(ConfigSyntax.milliseconds("0.05") == 50)
        #expect(ConfigSyntax.milliseconds("0.001") == 1)
        #expect(ConfigSyntax.milliseconds("1.000") == 1_000)
        #expect(ConfigSyntax.milliseconds("999999999.999") == 999_999_999_999)
        #expect(ConfigSyntax.milliseconds("1.") == nil)
        #expect(ConfigSyntax.milliseconds(".1") == nil)
        #expect(ConfigSyntax.milliseconds("1.0001") == nil)
        #expect(ConfigSyntax.milliseconds("1.2.3") == nil)
        #expect(ConfigSyntax.milliseconds("1000000000") == nil)
    }

    @Test func printsMillisecondsAsSeconds() {
        #expect(ConfigSyntax.seconds(50) == "0.05")
        #expect(ConfigSyntax.seconds(0) == "0")
        #expect(ConfigSyntax.seconds(1_500) == "1.5")
        #expect(ConfigSyntax.seconds(2_125) == "2.125")
        #expect(ConfigSyntax.seconds(3_600_000) == "3600")
    }

    @Test func findsMarkersInBytes() {
        #expect(ConfigSyntax.contains(Array("xx-----BEGIN X".utf8), "-----BEGIN"))
        #expect(!ConfigSyntax.contains(Array("----BEGIN".utf8), "-----BEGIN"))
        #expect(!ConfigSyntax.contains([], "-----BEGIN"))
    }
}
