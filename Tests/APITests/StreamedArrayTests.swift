@testable import API
import HTTP
import JSON
import Testing

/// `StreamedArray`: an answer whose one large array is written in pieces reads, once put
/// together, exactly as the same answer written at once: as a plain array, and as JSON text
/// inside a string (an MCP resource's `text`).
@Suite struct StreamedArrayTests {
    static let items = (0..<300).map { "item \($0) \"quoted\" \\ and a line\nbreak é 😀 " + String(repeating: "x", count: $0 * 10) }

    static func drain(_ response: HTTPResponse) throws -> (pieces: Int, body: [UInt8]) {
        let producer = try #require(response.producer)
        var body: [UInt8] = []
        var pieces = 0
        while let piece = producer.nextPiece() {
            body += piece
            pieces += 1
        }
        return (pieces, body)
    }

    @Test func aStreamedArrayReadsAsTheArrayWrittenAtOnce() throws {
        let array = StreamedArray(count: Self.items.count) { index, writer in writer.string(Self.items[index]) }
        let envelope = JSON.object(JSONObject([("before", .number(JSONNumber(1))), ("items", .string(array.placeholder)),
                                               ("after", .string("end"))]))
        let (pieces, body) = try Self.drain(try array.answer(.json(200, envelope.encoded())))
        let expected = JSON.object(JSONObject([("before", .number(JSONNumber(1))), ("items", .array(Self.items.map { .string($0) })),
                                               ("after", .string("end"))]))
        #expect(try JSONParser.parse(body) == expected)
        #expect(pieces > 3, "written in pieces")
        #expect(body.count > StreamedArray.streamFrom)
    }

    @Test func anArrayInsideAStringIsEscapedPieceByPiece() throws {
        var array = StreamedArray(count: Self.items.count) { index, writer in writer.string(Self.items[index]) }
        array.asStringContent = true
        array.open = Array("{\"items\":[".utf8)
        array.close = Array("],\"done\":true}".utf8)
        let envelope = JSON.object(JSONObject([("text", .string(array.placeholder))]))
        let (_, body) = try Self.drain(try array.answer(.json(200, envelope.encoded())))
        let outer = try JSONParser.parse(body)
        guard case .string(let text)? = outer["text"] else {
            Issue.record("no text: \(outer)")
            return
        }
        let inner = try JSONParser.parse(Array(text.utf8))
        #expect(inner == JSON.object(JSONObject([("items", .array(Self.items.map { .string($0) })), ("done", .bool(true))])))
    }

    @Test func anAnswerWithoutItsPlaceholderIsADefectNotAWrongBody() throws {
        let array = StreamedArray(count: 1) { _, writer in writer.null() }
        #expect(throws: APIError.self) { try array.answer(.json(200, Array("{\"items\":[]}".utf8))) }
    }
}
