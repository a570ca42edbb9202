import Testing
@testable import JSON

@Suite struct JSONObjectTests {
    private func sample() -> JSONObject {
        JSONObject([
            (key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3),
            (key: "c", value: 4), (key: "b", value: 5), (key: "a", value: 6),
        ])
    }

    @Test func subscriptReadsLastOccurrence() {
        let object = sample()
        #expect(object["a"] == 6)
        #expect(object["b"] == 5)
        #expect(object["c"] == 4)
        #expect(object["missing"] == nil)
    }

    @Test func subscriptSetReplacesLastOccurrenceOrAppends() {
        var object = sample()
        object["b"] = "x"
        #expect(object.members.map(\.value) == [1, 2, 3, 4, "x", 6])
        object["d"] = nil
        object["e"] = true
        #expect(object.keys == ["a", "b", "a", "c", "b", "a", "e"])
        #expect(object["e"] == true)
    }

    @Test func subscriptSetNilRemovesEveryOccurrence() {
        var object = sample()
        object["a"] = nil
        #expect(object.keys == ["b", "c", "b"])
        #expect(object.count == 3)
    }

    @Test func listsDuplicateKeysOnceInOrderOfFirstOccurrence() {
        #expect(sample().duplicateKeys == ["a", "b"])
        #expect(JSONObject([(key: "z", value: 1), (key: "y", value: 2), (key: "y", value: 3), (key: "z", value: 4)]).duplicateKeys == ["z", "y"])
        #expect(JSONObject([(key: "a", value: 1), (key: "b", value: 2)]).duplicateKeys == [])
        #expect(JSONObject().duplicateKeys == [])
    }

    @Test func findsTheFirstRepeatedKeyInSmallAndLargeObjects() {
        #expect(sample().firstDuplicateKey == "a")
        #expect(JSONObject([(key: "a", value: 1), (key: "b", value: 2)]).firstDuplicateKey == nil)
        #expect(JSONObject().firstDuplicateKey == nil)
        // Past eight members the table is used: the same answers.
        let many = (0..<50).map { (key: "k\($0)", value: JSON.null) }
        #expect(JSONObject(many).firstDuplicateKey == nil)
        #expect(JSONObject(many + [(key: "k7", value: 1), (key: "k3", value: 1)]).firstDuplicateKey == "k7")
        #expect(JSONObject([(key: "x", value: 1)] + many + [(key: "x", value: 2)]).firstDuplicateKey == "x")
    }

    @Test func findsARepeatedKeyAtAnyDepth() throws {
        #expect(try JSONParser.parse(#"{"a":[1,{"b":{"c":1}}],"d":{}}"#).firstDuplicateKey == nil)
        #expect(try JSONParser.parse(#"{"a":1,"a":2}"#).firstDuplicateKey == "a")
        #expect(try JSONParser.parse(#"{"a":[1,{"b":{"c":1,"c":2}}]}"#).firstDuplicateKey == "c")
        #expect(try JSONParser.parse(#"[[{"x":1}],[{"y":1,"y":1}]]"#).firstDuplicateKey == "y")
        #expect(try JSONParser.parse(#""a""#).firstDuplicateKey == nil)
    }

    @Test func iteratesInSourceOrder() {
        var seen: [String] = []
        for (key, value) in sample() {
            seen.append("\(key)=\(value)")
        }
        #expect(seen == ["a=1", "b=2", "a=3", "c=4", "b=5", "a=6"])
    }

    @Test func equalityIsOrderSensitive() {
        let ab = JSONObject([(key: "a", value: 1), (key: "b", value: 2)])
        let ba = JSONObject([(key: "b", value: 2), (key: "a", value: 1)])
        #expect(ab == JSONObject([(key: "a", value: 1), (key: "b", value: 2)]))
        #expect(ab != ba)
        #expect(ab != JSONObject([(key: "a", value: 1)]))
        #expect(ab != JSONObject([(key: "a", value: 1), (key: "b", value: 3)]))
    }
}
