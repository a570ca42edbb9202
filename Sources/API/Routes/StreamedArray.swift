import Crypto
import HTTP
import JSON
import Logging

/// A JSON answer with one array that can be large (a page of tasks), whose elements are
/// written as the client reads instead of all at once (`HTTPBodyProducer`).
///
/// The answer is made as usual, with a placeholder string where the array goes
/// (`placeholder`), so every envelope (REST, a JSON-RPC result, an MCP resource whose `text`
/// is itself JSON) is written by the code that writes it today. `answer` then cuts the body
/// at the placeholder: what comes before it goes first, then the elements a piece at a time,
/// then the rest. The placeholder is random for each answer, so no text a client stored can
/// look like it. Callers use this only for an array of some size (`worthStreaming`): a small
/// one is written at once and keeps its Content-Length.
struct StreamedArray {
    /// How many elements, and how to write element `i` (one JSON value).
    let count: Int
    let write: (Int, inout JSONWriter) throws -> Void
    /// Text around the elements, as JSON text (`[` and `]` for a plain array).
    var open: [UInt8] = Array("[".utf8)
    var close: [UInt8] = Array("]".utf8)
    /// Written as the content of a JSON string (the placeholder stands inside one): the
    /// array's text is escaped, `open` and `close` too.
    var asStringContent = false

    /// The string to put where the array goes: a string value, or the whole content of a
    /// string when `asStringContent`.
    let placeholder = "relaydeck-array-" + Hex.encode(SecureRandom.bytes(16))

    /// Answers whose array is expected to take at least this many bytes are streamed.
    static let streamFrom = 64 * 1024
    /// A piece is sent once it holds this much (a whole element always goes in one piece).
    static let pieceBytes = 32 * 1024

    static func worthStreaming(expectedBytes: Int) -> Bool { expectedBytes >= streamFrom }

    /// `response` (made with `placeholder` in it) with the array in its place, in pieces.
    func answer(_ response: HTTPResponse) throws -> HTTPResponse {
        let token = Array((asStringContent ? placeholder : "\"\(placeholder)\"").utf8)
        guard let at = Self.find(token, in: response.body) else {
            throw APIError.defect("a streamed answer lost its placeholder")
        }
        let producer = StreamedArrayBody(self, prefix: Array(response.body[..<at]),
                                         suffix: Array(response.body[(at + token.count)...]))
        return .produced(response.status, headers: response.headers, producer)
    }

    /// The first place `token` starts in `bytes`.
    static func find(_ token: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = token.first, bytes.count >= token.count else { return nil }
        var index = 0
        let last = bytes.count - token.count
        while index <= last {
            if bytes[index] == first && bytes[index..<(index + token.count)].elementsEqual(token) { return index }
            index += 1
        }
        return nil
    }
}

/// The pieces of a `StreamedArray` answer: the text before the array, its elements a few
/// at a time, the text after it.
final class StreamedArrayBody: HTTPBodyProducer {
    private let array: StreamedArray
    private var prefix: [UInt8]?
    private var suffix: [UInt8]?
    private var next = 0

    init(_ array: StreamedArray, prefix: [UInt8], suffix: [UInt8]) {
        self.array = array
        self.prefix = prefix
        self.suffix = suffix
    }

    func nextPiece() -> [UInt8]? {
        do {
            return try makePiece()
        } catch {
            // An element that cannot be written (a defect): the body stops short, so the
            // client sees a broken answer instead of a well-formed wrong one.
            Self.failed(error)
            suffix = nil
            next = array.count
            return nil
        }
    }

    func makePiece() throws -> [UInt8]? {
        guard suffix != nil else { return nil }
        var piece = JSONWriter(capacity: StreamedArray.pieceBytes + 4096)
        // The first piece starts with the text before the array and the array's opening.
        if let prefix {
            piece.bytes += prefix
            add(array.open, to: &piece)
            self.prefix = nil
        }
        while next < array.count && piece.bytes.count < StreamedArray.pieceBytes {
            var element = JSONWriter(capacity: 1024)
            if next > 0 { element.bytes.append(UInt8(ascii: ",")) }
            try array.write(next, &element)
            add(element.bytes, to: &piece)
            next += 1
        }
        if next == array.count, let suffix {
            add(array.close, to: &piece)
            piece.bytes += suffix
            self.suffix = nil
        }
        return piece.bytes
    }

    private func add(_ json: [UInt8], to piece: inout JSONWriter) {
        if array.asStringContent {
            piece.stringContent(json)
        } else {
            piece.bytes += json
        }
    }

    private static func failed(_ error: any Error) {
        Log.error("a streamed answer could not be written", ["error": String(describing: error)])
    }
}
