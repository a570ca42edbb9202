import Testing
@testable import JSON

@Suite struct DepthLimitTests {
    private func nestedArrays(_ depth: Int) -> [UInt8] {
        Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
    }

    private func nestedObjects(_ depth: Int) -> String {
        String(repeating: #"{"k":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }

    @Test func acceptsNestingExactlyAtDefaultLimit() throws {
        var value = try JSONParser.parse(nestedArrays(64))
        var depth = 0
        while let inner = value.arrayValue {
            depth += 1
            value = inner.first ?? .null
        }
        #expect(depth == 64)
    }

    @Test func rejectsOneLevelPastDefaultLimit() {
        #expect(throws: JSONParseError(.depthLimitExceeded, at: 64)) { try JSONParser.parse(nestedArrays(65)) }
    }

    @Test func countsObjectsAndArraysAlike() throws {
        #expect(throws: Never.self) { try JSONParser.parse(nestedObjects(3), maxDepth: 3) }
        #expect(throws: JSONParseError(.depthLimitExceeded, at: 15)) { try JSONParser.parse(nestedObjects(4), maxDepth: 3) }
        #expect(throws: JSONParseError(.depthLimitExceeded, at: 6)) { try JSONParser.parse(#"[{"a":[1]}]"#, maxDepth: 2) }
        #expect(try JSONParser.parse(#"[{"a":[1]}]"#, maxDepth: 3) == [["a": [1]]])
    }

    @Test func zeroDepthAllowsOnlyScalars() {
        #expect(throws: Never.self) { try JSONParser.parse("1", maxDepth: 0) }
        #expect(throws: JSONParseError(.depthLimitExceeded, at: 0)) { try JSONParser.parse("[]", maxDepth: 0) }
        #expect(throws: JSONParseError(.depthLimitExceeded, at: 0)) { try JSONParser.parse("{}", maxDepth: -5) }
    }

    @Test func stopsHundredThousandOpeningBracketsAtLimit() {
        let bytes = Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: JSONParseError(.depthLimitExceeded, at: 64)) { try JSONParser.parse(bytes) }
    }

    /// With no effective limit, depth costs heap, not call stack: 100,000 open arrays end in
    /// an ordinary error instead of a stack overflow.
    @Test func parsesDeepInputWithoutRecursion() {
        let bytes = Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: JSONParseError(.unexpectedEnd, at: 100_000)) { try JSONParser.parse(bytes, maxDepth: .max, maxContainers: .max) }
    }

    @Test func parsesWideInputInLinearShape() throws {
        let count = 50_000
        var text = "{"
        for k in 0..<count {
            if k > 0 { text += "," }
            text += "\"k\(k)\":[\(k)]"
        }
        text += "}"
        let object = try #require(try JSONParser.parse(text, maxContainers: .max).objectValue)
        #expect(object.count == count)
        #expect(object["k49999"] == [49999])
    }
}
