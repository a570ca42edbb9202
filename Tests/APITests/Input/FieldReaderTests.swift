@testable import API
import JSON
import Relaydeck
import Testing

/// The one field reader: every kind, absent / null / value kept apart, every problem with its
/// full path, for bodies and for query strings.
@Suite struct FieldReaderTests {
    private enum Status: String, CaseIterable { case todo, inProgress = "in_progress", done }

    private func body(_ text: String) throws -> FieldReader {
        FieldReader(body: try JSONParser.parse(Array(text.utf8)))
    }

    private func problems(_ reader: FieldReader) -> [String] {
        var reader = reader
        return reader.finish().map { "\($0.field): \($0.message)" }
    }

    @Test func absentNullAndAValueAreThreeDifferentThings() throws {
        var reader = try body(#"{"progress": null, "status_note": "half way"}"#)
        #expect(reader.readNullable("progress", .int(0...100)).isNull)
        #expect(reader.readNullable("status_note", .text(TextRule(characters: 0...140, bytes: 560))).value?.value == "half way")
        #expect(reader.readNullable("title", .string).isAbsent)
        #expect(problems(reader).isEmpty)
    }

    @Test func nullWhereNullIsNotAllowedIsTheTypeProblem() throws {
        var reader = try body(#"{"title": null, "notify": null, "progress": null}"#)
        #expect(reader.read("title", .string) == nil)
        #expect(reader.read("notify", .bool) == nil)
        #expect(reader.read("progress", .int(0...100)) == nil)
        #expect(problems(reader) == [
            "title: Must be a string.", "notify: Must be true or false.", "progress: Must be an integer from 0 to 100.",
        ])
    }

    @Test(arguments: [
        ("0", 0), ("100", 100), ("57", 57), ("50.0", 50), ("5e1", 50), ("-0", 0),
    ])
    func integersInTheirRangeAreRead(literal: String, value: Int) throws {
        var reader = try body(#"{"progress": \#(literal)}"#)
        #expect(reader.read("progress", .int(0...100)) == value)
        #expect(problems(reader).isEmpty)
    }

    /// An integral value in any spelling is an integer (JSON Schema's `integer` says the same).
    @Test(arguments: ["-1", "101", "50.5", "5e-1", "\"50\"", "true", "[50]", "99999999999999999999999"])
    func anythingButAnIntegerInRangeIsOneProblem(literal: String) throws {
        var reader = try body(#"{"progress": \#(literal)}"#)
        #expect(reader.read("progress", .int(0...100)) == nil)
        #expect(problems(reader) == ["progress: Must be an integer from 0 to 100."])
    }

    @Test func largeBoundsAreWrittenAsTheContractWritesThem() throws {
        var reader = try body(#"{"expires_in": 59}"#)
        _ = reader.read("expires_in", .int(60...86_400))
        #expect(problems(reader) == ["expires_in: Must be an integer from 60 to 86,400."])
    }

    @Test func anEnumTakesExactlyItsValues() throws {
        var reader = try body(#"{"a": "in_progress", "b": "In_Progress", "c": 3}"#)
        #expect(reader.read("a", .choice) == Status.inProgress)
        #expect(reader.read("b", FieldKind<Status>.choice) == nil)
        #expect(reader.read("c", FieldKind<Status>.choice) == nil)
        #expect(problems(reader) == [
            "b: Must be one of: todo, in_progress, done.", "c: Must be one of: todo, in_progress, done.",
        ])
    }

    @Test func arrayElementsAreNamedByTheirIndex() throws {
        let option = FieldKind<CheckedText>.text(TextRule(characters: 1...30, bytes: 180))
        var reader = try body(#"{"options": ["Staging", "", 5, "Staging"]}"#)
        #expect(reader.list("options", count: 2...4, distinct: true, option) == nil)
        #expect(problems(reader) == [
            "options[1]: Must be 1 to 30 characters.", "options[2]: Must be a string.", "options[3]: Repeats an earlier item.",
        ])
    }

    @Test func aListOutsideItsCountOrOfTheWrongShapeIsOneProblem() throws {
        var reader = try body(#"{"a": ["x"], "b": "x,y", "c": {}}"#)
        #expect(reader.list("a", count: 2...4, .string) == nil)
        #expect(reader.list("b", count: 1...4, .string) == nil)
        #expect(reader.list("c", count: 1...4, .string) == nil)
        #expect(problems(reader) == ["a: Must have 2 to 4 items.", "b: Must be an array.", "c: Must be an array."])
    }

    @Test func nestedObjectsNameTheirFieldsWithADot() throws {
        var reader = try body(#"{"settings": {"live_activities": 1, "x": true}, "y": 0}"#)
        if var settings = reader.object("settings") {
            #expect(settings.read("live_activities", .bool) == nil)
            reader.merge(settings)
        }
        #expect(problems(reader) == ["settings.live_activities: Must be true or false.", "settings.x: Unknown field.", "y: Unknown field."])
    }

    @Test func requiredUnknownAndRepeatedFieldsAreAllReported() throws {
        var reader = try body(#"{"a": 1, "a": 2, "b": 3}"#)
        reader.require("title")
        _ = reader.read("a", .int(0...9))
        #expect(problems(reader) == ["title: Required.", "a: Appears more than once.", "b: Unknown field."])
    }

    @Test func aTextRuleNormalizesAndCountsInCharacters() throws {
        var reader = try body(#"{"label": "  Claude \n Code  "}"#)
        #expect(reader.read("label", .text(.keyLabel))?.value == "Claude Code")
        #expect(problems(reader).isEmpty)
    }

    // MARK: Query strings

    @Test func queryParametersAreDecodedAndTyped() {
        var reader = FieldReader(query: "limit=50&status=todo,done&cursor=a%2Bb%3D&note=two+words&wait=0")
        #expect(reader.read("limit", .int(1...500)) == 50)
        #expect(reader.list("status", count: 1...3, FieldKind<Status>.choice) == [.todo, .done])
        #expect(reader.read("cursor", .string) == "a+b=")
        #expect(reader.read("note", .string) == "two words")
        #expect(reader.read("wait", .int(0...50)) == 0)
        #expect(problems(reader).isEmpty)
    }

    @Test(arguments: ["", "+5", " 5", "5 ", "0x10", "1e2", "5.0", "-", "9999999999999999999"])
    func aQueryIntegerIsPlainDigits(text: String) {
        var reader = FieldReader(query: Substring("limit=" + text))
        #expect(reader.read("limit", .int(1...500)) == nil)
        #expect(problems(reader) == ["limit: Must be an integer from 1 to 500."])
    }

    @Test func aQueryListNamesEachBadElement() {
        var reader = FieldReader(query: "status=todo,,nope")
        #expect(reader.list("status", count: 1...3, FieldKind<Status>.choice) == nil)
        let choices = "Must be one of: todo, in_progress, done."
        #expect(problems(reader) == ["status[1]: \(choices)", "status[2]: \(choices)"])
    }

    @Test func aQueryIgnoresUnknownParametersButNotRepeatedOnes() {
        var reader = FieldReader(query: "_=1700000000&limit=5&limit=6")
        #expect(reader.read("limit", .int(1...500)) == 6)
        #expect(problems(reader) == ["limit: Appears more than once."])
    }

    @Test(arguments: ["limit=%", "limit=%4", "limit=%zz", "limit=%FF", "limit=%C3%28"])
    func brokenPercentEncodingIsAProblemOfItsParameter(query: String) {
        let reader = FieldReader(query: Substring(query))
        #expect(problems(reader) == ["limit: Must be valid percent-encoded UTF-8."])
    }

    @Test func noQueryReadsAsNoParameters() {
        var reader = FieldReader(query: nil)
        #expect(reader.read("limit", .int(1...500)) == nil)
        #expect(reader.readNullable("cursor", .string).isAbsent)
        #expect(problems(reader).isEmpty)
    }

    @Test func aQueryBooleanIsTrueOrFalse() {
        var reader = FieldReader(query: "mark_read=true&all=false&x=1")
        #expect(reader.read("mark_read", .bool) == true)
        #expect(reader.read("all", .bool) == false)
        #expect(reader.read("x", .bool) == nil)
        #expect(problems(reader) == ["x: Must be true or false."])
    }
}

extension FieldValue {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
