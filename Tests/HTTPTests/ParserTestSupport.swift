import Testing
import TestSupport
import HTTP

/// What a test saw from the parser, in a form that compares exactly.
enum Seen: Equatable, Sendable, CustomStringConvertible {
    case head(HeadSummary)
    case end([UInt8])
    case error(HTTPParseError)

    var description: String {
        switch self {
        case .head(let h): "head(\(h))"
        case .end(let body): "end(\(String(decoding: body, as: UTF8.self).debugDescription))"
        case .error(let e): "error(\(e))"
        }
    }

    static func end(_ text: String) -> Seen { .end(Array(text.utf8)) }
}

/// The parts of a head the tests compare.
struct HeadSummary: Equatable, Sendable {
    var method: HTTPMethod
    var target: String
    var version: HTTPVersion = .http11
    var fields: [String]
    var contentLength: Int?
    var isChunked = false
    var keepAlive = true
    var expectsContinue = false

    init(
        _ method: HTTPMethod, _ target: String, version: HTTPVersion = .http11, fields: [String],
        contentLength: Int? = nil, isChunked: Bool = false, keepAlive: Bool = true, expectsContinue: Bool = false
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
        self.contentLength = contentLength
        self.isChunked = isChunked
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }

    init(_ head: HTTPRequestHead) {
        method = head.method
        target = head.target
        version = head.version
        fields = head.fields.map { "\($0.name): \($0.value)" }
        contentLength = head.contentLength
        isChunked = head.isChunked
        keepAlive = head.keepAlive
        expectsContinue = head.expectsContinue
    }
}

/// Feeds `pieces` one after the other the way a connection would: keep what was not
/// consumed, call again until `.needMore`, stop at the first error. Checks on the way that
/// `.needMore` consumed everything and that an error repeats without consuming.
func feed(_ pieces: [[UInt8]], limits: HTTPParserLimits = HTTPParserLimits()) -> [Seen] {
    var parser = HTTPRequestParser(limits: limits)
    var pending: [UInt8] = []
    var seen: [Seen] = []
    for piece in pieces {
        pending.append(contentsOf: piece)
        reading: while true {
            let (event, consumed) = pending.withUnsafeBytes { parser.parse($0) }
            #expect(consumed >= 0 && consumed <= pending.count)
            pending.removeFirst(min(max(consumed, 0), pending.count))
            switch event {
            case .needMore:
                #expect(pending.isEmpty, "needMore left bytes unconsumed")
                break reading
            case .head(let head):
                #expect(parser.isReadingBody)
                seen.append(.head(HeadSummary(head)))
            case .end(let body):
                #expect(!parser.isReadingBody)
                seen.append(.end(body))
            case .error(let error):
                seen.append(.error(error))
                let again = pending.withUnsafeBytes { parser.parse($0) }
                if case .error(let repeated) = again.event { #expect(repeated == error) } else { Issue.record("error did not repeat") }
                #expect(again.consumed == 0)
                return seen
            }
        }
    }
    return seen
}

func feed(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> [Seen] {
    feed([Array(text.utf8)], limits: limits)
}

func feedByteByByte(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> [Seen] {
    feed(text.utf8.map { [$0] }, limits: limits)
}

/// The error a request ends in, fed whole; also checks that byte-by-byte feeding fails alike.
func parseError(_ text: String, limits: HTTPParserLimits = HTTPParserLimits(), sourceLocation: SourceLocation = #_sourceLocation) -> HTTPParseError? {
    let whole = feed(text, limits: limits)
    let split = feedByteByByte(text, limits: limits)
    #expect(whole == split, "whole and byte-by-byte feeding differ", sourceLocation: sourceLocation)
    if case .error(let error) = whole.last { return error }
    return nil
}

/// Parses one complete request head (no body) and returns it.
func head(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPRequestHead? {
    do {
        return try HTTPRequestHead(parsing: Array(text.utf8))
    } catch {
        Issue.record("head failed: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
