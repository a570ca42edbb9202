import JSON
import Testing

/// `JSONParser.defaultMaxContainers`: a document may hold 10,000 non-empty arrays and objects, so the
/// worst body a client sends costs about a millisecond to build; empty ones cost nothing and
/// are not counted. The validator refuses exactly what the parser refuses, at the same byte.
@Suite struct ContainerLimitTests {
    /// `[[1],[1],...]` with `count` inner arrays (and the outer one).
    static func arrays(_ count: Int) -> [UInt8] {
        Array(("[" + Array(repeating: "[1]", count: count).joined(separator: ",") + "]").utf8)
    }

    @Test func aDocumentOfExactlyTheBoundIsParsedAndOneMoreIsRefusedWhereItOpens() throws {
        let limit = JSONParser.defaultMaxContainers
        let atBound = Self.arrays(limit - 1)
        #expect(try JSONParser.parse(atBound).arrayValue?.count == limit - 1)
        try JSONParser.validate(atBound)
        let over = Self.arrays(limit)
        // The last inner array is the one past the bound: it opens 4 bytes from the end.
        let error = JSONParseError(.tooManyContainers, at: over.count - 4)
        #expect(throws: error) { try JSONParser.parse(over) }
        #expect(throws: error) { try JSONParser.validate(over) }
    }

    @Test func objectsCountTooAndEmptyContainersDoNot() throws {
        let objects = Array(("[" + Array(repeating: #"{"a":1}"#, count: JSONParser.defaultMaxContainers).joined(separator: ",") + "]").utf8)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(objects) }
        #expect(throws: JSONParseError.self) { try JSONParser.validate(objects) }
        let empty = Array(("[" + Array(repeating: "[],{}", count: 100_000).joined(separator: ",") + "]").utf8)
        #expect(try JSONParser.parse(empty).arrayValue?.count == 200_000)
        try JSONParser.validate(empty)
    }

    @Test func theErrorSaysWhatIsWrong() {
        #expect(JSONParseError(.tooManyContainers, at: 7).description == "too many arrays and objects at offset 7")
    }
}
