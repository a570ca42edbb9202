import Testing
@testable import JSON

@Suite struct JSONValueTests {
    @Test func accessorsAnswerOnlyForTheirCase() {
        let values: [JSON] = [nil, true, 42, 2.5, "s", [1], ["k": "v"]]
        #expect(values.map(\.isNull) == [true, false, false, false, false, false, false])
        #expect(values.map(\.boolValue) == [nil, true, nil, nil, nil, nil, nil])
        #expect(values.map(\.int64Value) == [nil, nil, 42, nil, nil, nil, nil])
        #expect(values.map(\.doubleValue) == [nil, nil, 42, 2.5, nil, nil, nil])
        #expect(values.map(\.stringValue) == [nil, nil, nil, nil, "s", nil, nil])
        #expect(values.map(\.arrayValue) == [nil, nil, nil, nil, nil, [1], nil])
        #expect(values.map { $0.objectValue?.keys } == [nil, nil, nil, nil, nil, nil, ["k"]])
        #expect(values.map { $0["k"] } == [nil, nil, nil, nil, nil, nil, "v"])
    }

    @Test func doubleValueIsNilPastDoubleRange() throws {
        let value = try JSONParser.parse("[1e400, 2]")
        #expect(value.arrayValue?.map(\.doubleValue) == [nil, 2])
        #expect(value.arrayValue?.map(\.int64Value) == [nil, 2])
    }

    @Test func dictionaryLiteralKeepsOrderAndDuplicates() {
        let value: JSON = ["z": 1, "a": 2, "z": 3]
        #expect(value.objectValue?.keys == ["z", "a", "z"])
        #expect(value["z"] == 3)
        #expect(value.description == #"{"z":1,"a":2,"z":3}"#)
    }

    @Test func literalsBuildTheExpectedCases() {
        let value: JSON = [nil, true, false, -7, 0.5, "x", [], [:]]
        #expect(value == .array([
            .null, .bool(true), .bool(false), .number(JSONNumber(-7)), .number(JSONNumber(literal: "0.5")!),
            .string("x"), .array([]), .object(JSONObject()),
        ]))
    }

    @Test func describesAsCompactText() {
        let value: JSON = ["id": 7, "tags": ["a", "b"], "done": false, "note": nil, "ratio": 0.25]
        #expect(value.description == #"{"id":7,"tags":["a","b"],"done":false,"note":null,"ratio":0.25}"#)
        #expect(value.encoded() == Array(value.description.utf8))
    }

    @Test func numbersCompareByValueInsideValues() throws {
        #expect(try JSONParser.parse("[4e1, -0]") == [40, 0])
    }
}
