/// A request head. Owns one copy of the head bytes; names and values are ranges into it,
/// so parsing allocates little and lookups need no String per header.
public struct HTTPRequestHead: Sendable {
    /// The request method.
    public let method: HTTPMethod
    /// The request's HTTP version.
    public let version: HTTPVersion
    /// The raw request-target, e.g. `/v1/keys?limit=5` (or `*` for `OPTIONS *`).
    public let target: String
    /// The body length from Content-Length; nil when absent (no body, or chunked).
    public let contentLength: Int?
    /// True when the body is sent with `Transfer-Encoding: chunked`.
    public let isChunked: Bool
    /// True when the connection should send `100 Continue` before reading the body: an
    /// HTTP/1.1 request with `Expect: 100-continue` (any case) and a body to wait for.
    public let expectsContinue: Bool
    /// HTTP/1.1: true unless a Connection field has the token `close`. HTTP/1.0: true only
    /// if a Connection field has `keep-alive` and none has `close`.
    public let keepAlive: Bool

    let bytes: [UInt8]
    let fieldRanges: [FieldRange]
    private let targetStart: Int
    private let targetEnd: Int
    private let queryMark: Int?
    private let pathEnd: String.Index
    private let queryStart: String.Index?

    /// Parses a complete head: request line, field lines and the blank line, each ending in
    /// CRLF, nothing before or after. Throws what the parser would answer for that head,
    /// 413 for a Content-Length over `limits.maxBodyBytes` included. The parser uses this;
    /// tests of other layers can build heads with it too.
    public init(parsing bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits()) throws(HTTPParseError) {
        let result = bytes.withUnsafeBytes { p -> Result<ParsedHead, HTTPParseError> in
            do throws(HTTPParseError) {
                return .success(try HeadParser.parse(p, limits: limits))
            } catch {
                return .failure(error)
            }
        }
        self.init(bytes: bytes, parsed: try result.get())
    }

    init(bytes: [UInt8], parsed: ParsedHead) {
        let line = parsed.requestLine
        self.bytes = bytes
        self.method = line.method
        self.version = line.version
        self.targetStart = line.targetStart
        self.targetEnd = line.targetEnd
        self.queryMark = line.queryMark
        self.fieldRanges = parsed.fields
        self.contentLength = parsed.contentLength
        self.isChunked = parsed.isChunked
        self.expectsContinue = parsed.expectsContinue
        self.keepAlive = parsed.keepAlive
        let target = String(decoding: bytes[line.targetStart..<line.targetEnd], as: UTF8.self)
        self.target = target
        // The target is ASCII, so a byte offset is a UTF-8 offset into the String.
        if let mark = line.queryMark {
            let index = target.utf8.index(target.utf8.startIndex, offsetBy: mark - line.targetStart)
            self.pathEnd = index
            self.queryStart = target.utf8.index(after: index)
        } else {
            self.pathEnd = target.endIndex
            self.queryStart = nil
        }
    }

    /// The target before `?`, raw (not percent-decoded).
    public var path: Substring { target[..<pathEnd] }

    /// The target after the first `?`, raw; nil when there is no `?`.
    public var query: Substring? { queryStart.map { target[$0...] } }

    /// The path as bytes, for routing without a String.
    public var pathBytes: ArraySlice<UInt8> { bytes[targetStart..<(queryMark ?? targetEnd)] }

    /// The number of field lines in the head.
    public var headerCount: Int { fieldRanges.count }
}
