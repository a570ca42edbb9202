/// An incremental HTTP/1.1 request parser: fed bytes, it says what it saw. It knows nothing
/// of sockets, so a request split across reads at any byte, or several requests in one
/// read, are the same to it.
///
/// Typical use: `parse` the unconsumed bytes, drop `consumed` of them, act on the event,
/// and call again with the rest until `.needMore` (which always consumes everything given).
public struct HTTPRequestParser: Sendable {
    /// The bounds in force; a change applies to bytes parsed from then on.
    public var limits: HTTPParserLimits

    enum State: Sendable {
        /// Reading a head (or the empty lines before it).
        case head
        /// `.head` was given for a request without a body; `.end` is next.
        case bodyless
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        /// After a chunk's data: its CRLF, `sawCR` once the CR is in.
        case chunkDataEnd(sawCR: Bool)
        case trailers
        case failed(HTTPParseError)
    }

    var state: State = .head

    // Head state. `headBuffer` holds the head bytes seen so far, only when a head is split
    // across calls; `lineStart` is where its current line starts (0: the request line).
    var headBuffer: [UInt8] = []
    var lineStart = 0
    var fieldLines = 0
    var emptyLinesSkipped = 0
    var pendingEmptyLineCR = false

    // Body state. `lineBuffer` holds a chunk size line or trailer line split across calls.
    var body: [UInt8] = []
    var lineBuffer: [UInt8] = []
    var trailerBytes = 0

    /// RFC 9112 2.2 asks to ignore "at least one" empty line before a request line; a few
    /// cover clients that end a body with an extra CRLF, more is someone wasting our time.
    static let maxEmptyLinesBeforeRequest = 4

    /// The most body capacity reserved from a Content-Length before the bytes come.
    static let maxBodyReservation = 1_048_576

    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// True between `.head` and `.end` (the body is being read).
    public var isReadingBody: Bool {
        switch state {
        case .head, .failed: false
        case .bodyless, .fixedBody, .chunkSizeLine, .chunkData, .chunkDataEnd, .trailers: true
        }
    }

    /// True when no byte of a next request has been seen (idle keep-alive state). Empty
    /// lines before a request line do not count as a request.
    public var isIdle: Bool {
        if case .head = state { return headBuffer.isEmpty && lineStart == 0 }
        return false
    }

    /// Parses from `bytes`; returns the next event and how many bytes it consumed. The caller
    /// drops the consumed bytes and calls again with the rest (and later with more).
    ///
    /// - After `.head`, call again (with the rest, possibly empty) for the body.
    /// - After `.end`, the parser is ready for the next request on the connection; bytes
    ///   after the end of that request are not consumed (pipelining).
    /// - After `.error`, the parser stays failed: every later call returns the same error
    ///   and consumes nothing. On the failing call `consumed` counts the bytes examined; a
    ///   413 decided from Content-Length consumes exactly the head, no body byte.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> (event: HTTPParserEvent, consumed: Int) {
        switch state {
        case .head:
            return parseHead(bytes)
        case .bodyless:
            state = .head
            return (.end(body: []), 0)
        case .fixedBody(let remaining):
            return parseFixedBody(bytes, remaining: remaining)
        case .chunkSizeLine, .chunkData, .chunkDataEnd, .trailers:
            return parseChunked(bytes)
        case .failed(let error):
            return (.error(error), 0)
        }
    }

    /// Enters the failed state; every later call repeats `error`.
    mutating func fail(_ error: HTTPParseError, consumed: Int) -> (event: HTTPParserEvent, consumed: Int) {
        state = .failed(error)
        headBuffer = []
        body = []
        lineBuffer = []
        return (.error(error), consumed)
    }

    /// Hands the finished body out and readies the parser for the next request.
    mutating func finishRequest(consumed: Int) -> (event: HTTPParserEvent, consumed: Int) {
        let finished = body
        body = []
        lineBuffer.removeAll(keepingCapacity: true)
        trailerBytes = 0
        state = .head
        return (.end(body: finished), consumed)
    }
}
