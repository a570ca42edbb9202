import Testing
@testable import JSON

@Suite struct ParserTests {
    private func error(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(text, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    private func error(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesNestedDocument() throws {
        let value = try JSONParser.parse(#" { "a" : [1, true, null, "x", {}], "b" : {"c": -0.5e3, "d": []} } "#)
        let expected: JSON = [
            "a": [1, true, nil, "x", .object(JSONObject())],
            "b": ["c": .number(JSONNumber(literal: "-0.5e3")!), "d": []],
        ]
        #expect(value == expected)
        #expect(value["b"]?["c"]?.number?.literal == "-0.5e3")
    }

    @Test func parsesScalarsAtTopLevel() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse(" 12 ") == 12)
        #expect(try JSONParser.parse(#""hi""#) == "hi")
    }

    @Test func acceptsOnlyTheFourWhitespaceBytes() throws {
        #expect(try JSONParser.parse(" \t\r\n[ \t\r\n1 \t\r\n] \t\r\n") == [1])
        #expect(error("[\u{0C}1]") == JSONParseError(.unexpectedByte(0x0C), at: 1))
        #expect(error([0xC2, 0xA0, 0x31]) == JSONParseError(.unexpectedByte(0xC2), at: 0))
    }

    @Test func rejectsEmptyAndWhitespaceOnlyInput() {
        #expect(error("") == JSONParseError(.empty, at: 0))
        #expect(error(" \n\t") == JSONParseError(.empty, at: 3))
        #expect(throws: JSONParseError(.empty, at: 0)) { try JSONParser.parse(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    @Test func rejectsByteOrderMark() {
        #expect(error([0xEF, 0xBB, 0xBF, 0x7B, 0x7D]) == JSONParseError(.byteOrderMark, at: 0))
        #expect(error([0xEF, 0xBB]) == JSONParseError(.unexpectedByte(0xEF), at: 0))
    }

    @Test func acceptsByteOrderMarkCharacterInsideString() throws {
        #expect(try JSONParser.parse([0x22, 0xEF, 0xBB, 0xBF, 0x22]) == "\u{FEFF}")
    }

    @Test func reportsErrorOffsets() {
        #expect(error("[1,2}") == JSONParseError(.unexpectedByte(0x7D), at: 4))
        #expect(error(#"{"a":1,}"#) == JSONParseError(.unexpectedByte(0x7D), at: 7))
        #expect(error("[1,]") == JSONParseError(.unexpectedByte(0x5D), at: 3))
        #expect(error("[1 2]") == JSONParseError(.unexpectedByte(0x32), at: 3))
        #expect(error(#"{"a" 1}"#) == JSONParseError(.unexpectedByte(0x31), at: 5))
        #expect(error("{1:2}") == JSONParseError(.unexpectedByte(0x31), at: 1))
        #expect(error("[1] x") == JSONParseError(.trailingData, at: 4))
        #expect(error("{} {}") == JSONParseError(.trailingData, at: 3))
        #expect(error("[01]") == JSONParseError(.invalidNumber, at: 2))
        #expect(error("[1.]") == JSONParseError(.invalidNumber, at: 3))
        #expect(error("-") == JSONParseError(.invalidNumber, at: 1))
        #expect(error("1e+") == JSONParseError(.invalidNumber, at: 3))
        #expect(error("[.5]") == JSONParseError(.unexpectedByte(0x2E), at: 1))
        #expect(error("+1") == JSONParseError(.unexpectedByte(0x2B), at: 0))
        #expect(error("tru") == JSONParseError(.unexpectedEnd, at: 3))
        #expect(error("trUe") == JSONParseError(.unexpectedByte(0x55), at: 2))
        #expect(error("[1,") == JSONParseError(.unexpectedEnd, at: 3))
        #expect(error(#"{"a":"#) == JSONParseError(.unexpectedEnd, at: 5))
        #expect(error(#""abc"#) == JSONParseError(.unexpectedEnd, at: 4))
        #expect(error("\"a\u{01}\"") == JSONParseError(.controlCharacterInString, at: 2))
        #expect(error(#""\x""#) == JSONParseError(.invalidEscape, at: 1))
        #expect(error(#""ab\u12G4""#) == JSONParseError(.invalidUnicodeEscape, at: 3))
        #expect(error(#""\u12"#) == JSONParseError(.unexpectedEnd, at: 5))
        #expect(error(#""\"#) == JSONParseError(.unexpectedEnd, at: 2))
    }

    @Test func describesErrors() {
        #expect(JSONParseError(.unexpectedByte(0x7D), at: 12).description == "unexpected byte 0x7D at offset 12")
        #expect(JSONParseError(.unexpectedByte(0x0A), at: 0).description == "unexpected byte 0x0A at offset 0")
        #expect(JSONParseError(.unexpectedEnd, at: 3).description == "unexpected end of input at offset 3")
        #expect(JSONParseError(.depthLimitExceeded, at: 64).description == "nesting too deep at offset 64")
    }

    @Test func offsetsOfSliceCountFromSliceStart() throws {
        let bytes = Array("xx[1,}".utf8)
        #expect(throws: JSONParseError(.unexpectedByte(0x7D), at: 3)) { try JSONParser.parse(bytes[2...]) }
        #expect(try JSONParser.parse(Array("[7]]".utf8)[0..<3]) == [7])
    }

    @Test func keepsDuplicateKeysInOrder() throws {
        let value = try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b", "a"])
        #expect(value["a"] == 3)
        #expect(value.objectValue?.duplicateKeys == ["a"])
    }

    @Test func keepsNumberLiteralAsWritten() throws {
        let value = try JSONParser.parse("[1E400, -0.0, 1e-7, 12345678901234567890123]")
        #expect(value.arrayValue?.compactMap { $0.number?.literal } == ["1E400", "-0.0", "1e-7", "12345678901234567890123"])
        #expect(value.encoded() == Array("[1E400,-0.0,1e-7,12345678901234567890123]".utf8))
    }

    @Test func parsesFromStringSliceAndBuffer() throws {
        let text = #"{"k":["v"]}"#
        let expected: JSON = ["k": ["v"]]
        #expect(try JSONParser.parse(text) == expected)
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
        #expect(try JSONParser.parse(Array(text.utf8)[...]) == expected)
        let fromBuffer = try Array(text.utf8).withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSON in try JSONParser.parse(buffer) }
        }.get()
        #expect(fromBuffer == expected)
    }
}

extension JSON {
    /// The number, for tests that look at literals.
    var number: JSONNumber? {
        guard case .number(let number) = self else { return nil }
        return number
    }
}
