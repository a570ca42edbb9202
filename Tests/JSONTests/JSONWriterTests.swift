import Testing
@testable import JSON

@Suite struct JSONWriterTests {
    private func text(_ build: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        build(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func placesCommasInNestedStructures() {
        let written = text { w in
            w.beginObject()
            w.key("id"); w.int(7)
            w.key("tags"); w.beginArray(); w.string("a"); w.string("b"); w.beginArray(); w.endArray(); w.null(); w.endArray()
            w.key("owner"); w.beginObject(); w.key("name"); w.string("Ann"); w.key("admin"); w.bool(true); w.endObject()
            w.key("empty"); w.beginObject(); w.endObject()
            w.key("list"); w.beginArray(); w.beginObject(); w.endObject(); w.beginObject(); w.key("x"); w.bool(false); w.endObject(); w.endArray()
            w.endObject()
        }
        #expect(written == #"{"id":7,"tags":["a","b",[],null],"owner":{"name":"Ann","admin":true},"empty":{},"list":[{},{"x":false}]}"#)
    }

    @Test func writesEmptyContainers() {
        #expect(text { $0.beginArray(); $0.endArray() } == "[]")
        #expect(text { $0.beginObject(); $0.endObject() } == "{}")
    }

    @Test func escapesKeysGivenAsStrings() {
        let name = "a\"b\nc"
        #expect(text { w in w.beginObject(); w.key(name); w.int(1); w.key("plain"); w.int(2); w.endObject() }
            == #"{"a\"b\nc":1,"plain":2}"#)
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() {
        #expect(text { $0.string("say \"hi\" \\ bye") } == #""say \"hi\" \\ bye""#)
        #expect(text { $0.string("\u{08}\u{0C}\n\r\t") } == #""\b\f\n\r\t""#)
        #expect(text { $0.string("\u{0}\u{1}\u{1F}\u{7F}") } == "\"\\u0000\\u0001\\u001f\u{7F}\"")
        #expect(text { $0.string("/") } == #""/""#)
    }

    @Test func escapesEveryControlCharacter() throws {
        let all = String(decoding: (0..<32).map { UInt8($0) }, as: UTF8.self)
        let written = text { $0.string(all) }
        #expect(written == #""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f""#)
        #expect(try JSONParser.parse(written) == .string(all))
    }

    @Test func passesNonASCIIThrough() {
        #expect(text { $0.string("héllo €, 日本, 👩‍💻 😀") } == "\"héllo €, 日本, 👩‍💻 😀\"")
        #expect(text { $0.string("\u{2028}\u{FEFF}") }.utf8.count == 8)
    }

    @Test func writesSubstringsStaticStringsAndOptionals() {
        let sentence = "one two three"
        let middle = sentence.split(separator: " ")[1]
        let missing: String? = nil
        let present: String? = "p"
        #expect(text { w in w.beginArray(); w.string(middle); w.string("lit\n"); w.string(missing); w.string(present); w.endArray() }
            == #"["two","lit\n",null,"p"]"#)
    }

    @Test func writesLongStringWithScatteredEscapes() throws {
        let piece = String(repeating: "x", count: 37) + "\"é\t"
        let long = String(repeating: piece, count: 500)
        let written = text { $0.string(long) }
        #expect(try JSONParser.parse(written) == .string(long))
        #expect(written.utf8.count == long.utf8.count + 2 + 500 * 2)
    }

    @Test func writesDoublesShortest() {
        let values: [Double] = [0.1, 1e-7, 1e21, -0.0, 0, 5, 1.5, 123456.789, .nan, .infinity, -.infinity]
        let written = text { w in w.beginArray(); for value in values { w.double(value) }; w.endArray() }
        #expect(written == "[0.1,1e-7,1e+21,-0.0,0.0,5.0,1.5,123456.789,null,null,null]")
    }

    @Test func writesIntegerExtremes() {
        let written = text { w in
            w.beginArray(); w.int(Int64.min); w.int(Int64.max); w.int(0); w.int(-1); w.int(Int(10)); w.int(9); w.endArray()
        }
        #expect(written == "[-9223372036854775808,9223372036854775807,0,-1,10,9]")
    }

    @Test func writesNumberLiteralsUnchanged() throws {
        let number = try #require(JSONNumber(literal: "1E400"))
        #expect(text { w in w.beginArray(); w.number(number); w.number(JSONNumber(3)); w.endArray() } == "[1E400,3]")
    }

    @Test(arguments: [
        (Int64(1_760_000_000_000), "1760000000.0"),
        (1_760_112_300_900, "1760112300.9"),
        (1_760_112_000_412, "1760112000.412"),
        (1_760_112_000_050, "1760112000.05"),
        (1_760_112_000_005, "1760112000.005"),
        (1_760_112_000_120, "1760112000.12"),
        (0, "0.0"),
        (1, "0.001"),
        (999, "0.999"),
        (1000, "1.0"),
        (1001, "1.001"),
        (-1, "-0.001"),
        (-500, "-0.5"),
        (-1500, "-1.5"),
        (-1000, "-1.0"),
        (Int64.max, "9223372036854775.807"),
        (Int64.min, "-9223372036854775.808"),
    ])
    func writesTimestampsFromMilliseconds(_ millis: Int64, _ expected: String) {
        #expect(text { $0.timestamp(millis: millis) } == expected)
    }

    @Test func timestampsAreMembersLikeAnyValue() {
        #expect(text { w in w.beginObject(); w.key("at"); w.timestamp(millis: 1500); w.key("n"); w.int(1); w.endObject() }
            == #"{"at":1.5,"n":1}"#)
    }

    @Test func placesCommasAroundRawValues() {
        let cached = Array(#"{"k":[1,2]}"#.utf8)
        let written = text { w in
            w.beginArray(); w.int(0); w.rawValue(cached); w.rawValue(cached[...]); w.bool(false); w.endArray()
        }
        #expect(written == #"[0,{"k":[1,2]},{"k":[1,2]},false]"#)
    }

    @Test func writesValuesWithDuplicateKeysInOrder() {
        let value: JSON = ["b": 1, "a": [true, nil, "x"], "b": ["c": 2.5]]
        #expect(text { w in w.beginArray(); w.value(value); w.value(nil); w.endArray() }
            == #"[{"b":1,"a":[true,null,"x"],"b":{"c":2.5}},null]"#)
    }

    @Test func writesTopLevelScalars() {
        #expect(text { $0.null() } == "null")
        #expect(text { $0.bool(false) } == "false")
        #expect(text { $0.int(-3) } == "-3")
    }

    @Test func reservesRequestedCapacity() {
        #expect(JSONWriter(capacity: 4096).bytes.capacity >= 4096)
        #expect(JSONWriter().bytes.isEmpty)
    }
}
