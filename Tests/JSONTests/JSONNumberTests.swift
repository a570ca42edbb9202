import Testing
@testable import JSON

@Suite struct JSONNumberTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var literal: String
        var int64: Int64?
        var double: Double?
        var isInteger: Bool
        var testDescription: String { literal }
    }

    static let table: [Row] = [
        Row(literal: "40", int64: 40, double: 40, isInteger: true),
        Row(literal: "40.0", int64: 40, double: 40, isInteger: true),
        Row(literal: "4e1", int64: 40, double: 40, isInteger: true),
        Row(literal: "4E+1", int64: 40, double: 40, isInteger: true),
        Row(literal: "400e-1", int64: 40, double: 40, isInteger: true),
        Row(literal: "0.04e3", int64: 40, double: 40, isInteger: true),
        Row(literal: "-0", int64: 0, double: 0, isInteger: true),
        Row(literal: "0e99999999999999999999", int64: 0, double: 0, isInteger: true),
        Row(literal: "-0.000e-5", int64: 0, double: 0, isInteger: true),
        Row(literal: "40.5", int64: nil, double: 40.5, isInteger: false),
        Row(literal: "-1.5", int64: nil, double: -1.5, isInteger: false),
        Row(literal: "0.1", int64: nil, double: 0.1, isInteger: false),
        Row(literal: "1e400", int64: nil, double: nil, isInteger: true),
        Row(literal: "-1.5e+9999", int64: nil, double: nil, isInteger: true),
        Row(literal: "1e-400", int64: nil, double: 0, isInteger: false),
        Row(literal: "123.456e-789", int64: nil, double: 0, isInteger: false),
        Row(literal: "1e-99999999999999999999999", int64: nil, double: 0, isInteger: false),
        Row(literal: "9223372036854775807", int64: .max, double: 0x1p63, isInteger: true),
        Row(literal: "9223372036854775808", int64: nil, double: 0x1p63, isInteger: true),
        Row(literal: "-9223372036854775808", int64: .min, double: -0x1p63, isInteger: true),
        Row(literal: "-9223372036854775809", int64: nil, double: -0x1p63, isInteger: true),
        Row(literal: "92233720368547758.07e2", int64: .max, double: 0x1p63, isInteger: true),
        Row(literal: "1e18", int64: 1_000_000_000_000_000_000, double: 1e18, isInteger: true),
        Row(literal: "100000000000000000000e-2", int64: 1_000_000_000_000_000_000, double: 1e18, isInteger: true),
        Row(literal: "1e19", int64: nil, double: 1e19, isInteger: true),
        Row(literal: "12345678901234567890123", int64: nil, double: 1.2345678901234568e22, isInteger: true),
        Row(literal: "9007199254740993", int64: 9_007_199_254_740_993, double: 9_007_199_254_740_992, isInteger: true),
        Row(literal: "0.000001e6", int64: 1, double: 1, isInteger: true),
        Row(literal: "1.0000000000000000000001", int64: nil, double: 1, isInteger: false),
    ]

    @Test(arguments: table)
    func answersExactValues(_ row: Row) throws {
        let number = try #require(JSONNumber(literal: row.literal))
        #expect(number.literal == row.literal)
        #expect(number.int64 == row.int64)
        #expect(number.double == row.double)
        #expect(number.isInteger == row.isInteger)
    }

    @Test func validatesLiteralGrammar() {
        for valid in ["0", "-0", "7", "-12", "1.5e-3", "1E5", "0.0", "1e+0", "1e007", "-0.0E-0"] {
            #expect(JSONNumber(literal: valid)?.literal == valid, "\(valid)")
        }
        for invalid in ["", " 1", "1 ", "+1", "01", "-01", ".5", "1.", "1e", "1e+", "0x10", "NaN", "Infinity",
                        "-Infinity", "-", "--1", "1.5.3", "1,5", "١", "1_000", "1e5.5"] {
            #expect(JSONNumber(literal: invalid) == nil, "\(invalid)")
        }
    }

    @Test func writesIntegersInDecimal() {
        #expect(JSONNumber(Int64.min).literal == "-9223372036854775808")
        #expect(JSONNumber(Int64.max).literal == "9223372036854775807")
        #expect(JSONNumber(-42).literal == "-42")
        #expect(JSONNumber(Int64.min).int64 == .min)
    }

    @Test func writesDoublesShortestAndRejectsNonFinite() {
        #expect(JSONNumber(0.1)?.literal == "0.1")
        #expect(JSONNumber(1e-7)?.literal == "1e-7")
        #expect(JSONNumber(1e21)?.literal == "1e+21")
        #expect(JSONNumber(-0.0)?.literal == "-0.0")
        #expect(JSONNumber(5.0)?.literal == "5.0")
        #expect(JSONNumber(2.5e-5)?.literal == "2.5e-5")
        #expect(JSONNumber(Double.leastNonzeroMagnitude)?.literal == "5e-324")
        #expect(JSONNumber(1.7976931348623157e308)?.literal == "1.7976931348623157e+308")
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(-Double.infinity) == nil)
    }

    @Test func doubleTextReadsBackToSameValue() throws {
        for value in [0.1, 1.0 / 3.0, 123456.789, 1e-300, 6.02214076e23, -2.2250738585072014e-308] {
            let number = try #require(JSONNumber(value))
            #expect(JSONNumber(literal: number.literal) != nil)
            #expect(number.double == value)
        }
    }

    @Test func comparesByValue() throws {
        func number(_ literal: String) throws -> JSONNumber { try #require(JSONNumber(literal: literal)) }
        #expect(try number("40") == number("4e1"))
        #expect(try number("40") == number("40.0"))
        #expect(try number("-0") == number("0"))
        #expect(try number("0.1") == number("1e-1"))
        #expect(try number("40") != number("41"))
        #expect(try number("0.5") != number("1"))
        #expect(try number("9223372036854775808") != number("9223372036854775807"))
        #expect(try number("1e400") == number("1e400"))
        #expect(try number("1e400") != number("10e399"))
        #expect(try number("1e400") != number("1"))
        #expect(try JSONNumber(40) == number("4e1"))
        #expect(try JSONNumber(0.25) == number("25e-2"))
    }

    /// Integers of up to 18 digits are kept as `Int64`, the rest as text; nothing of that
    /// shows: the literal, the values, the equality and the written text are as they were.
    @Test func integersKeptAsIntegersKeepTheirLiteral() throws {
        let literals = ["0", "-0", "7", "-7", "123456789012345678", "-123456789012345678", "1234567890123456789",
                        "9007199254740993", "-9223372036854775808", "10", "1.0", "1e2"]
        for literal in literals {
            let parsed = try #require(try JSONParser.parse(literal).number)
            let built = try #require(JSONNumber(literal: literal))
            #expect(parsed.literal == literal)
            #expect(built.literal == literal)
            #expect(parsed.description == literal)
            #expect(parsed == built)
            #expect(JSON.number(parsed).encoded() == Array(literal.utf8))
            #expect(try JSONParser.parse("[\(literal)]").encoded() == Array("[\(literal)]".utf8))
        }
        #expect(try JSONParser.parse("123456789012345678").number?.storedInteger == 123_456_789_012_345_678)
        #expect(try JSONParser.parse("1234567890123456789").number?.storedInteger == nil)
        #expect(try JSONParser.parse("-0").number?.storedInteger == nil)
        #expect(try JSONParser.parse("1.0").number?.storedInteger == nil)
        #expect(JSONNumber(Int64.min).literal == "-9223372036854775808")
        #expect(JSONNumber(Int64.min) == JSONNumber(literal: "-9223372036854775808"))
        #expect(try JSONParser.parse("-0").number == JSONNumber(0))
        #expect(try JSONParser.parse("5").number == JSONNumber(literal: "5.0"))
        #expect(try JSONParser.parse("123456789012345678").number?.double == 123_456_789_012_345_678)
    }
}
