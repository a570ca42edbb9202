/// Everything the one-pass head parse learns, as offsets into the head bytes.
struct ParsedHead {
    var requestLine: RequestLine
    var fields: [FieldRange]
    var contentLength: Int?
    var isChunked: Bool
    var expectsContinue: Bool
    var keepAlive: Bool
}

/// Parses a complete head (request line, field lines, blank line) in one pass and checks
/// the message framing rules of RFC 9112 6.
enum HeadParser {
    static func parse(_ p: UnsafeRawBufferPointer, limits: HTTPParserLimits) throws(HTTPParseError) -> ParsedHead {
        guard p.count <= limits.maxHeadBytes else { throw .headersTooLarge }
        let lineEnd = try endOfLine(p, from: 0)
        guard lineEnd <= limits.maxRequestLineBytes else { throw .uriTooLong }
        let requestLine = try RequestLine(p, end: lineEnd, maxTargetBytes: limits.maxTargetBytes)

        var fields: [FieldRange] = []
        fields.reserveCapacity(16)
        var framing = FramingFields()
        var start = lineEnd + 2
        while true {
            let end = try endOfLine(p, from: start)
            if end == start {
                guard end + 2 == p.count else { throw .badRequest("bytes after the end of the head") }
                break
            }
            guard fields.count < limits.maxHeaderCount else { throw .headersTooLarge }
            let field = try FieldLine.parse(p, start, end)
            fields.append(field)
            try framing.inspect(p, field)
            start = end + 2
        }
        return try framing.finish(requestLine: requestLine, fields: fields, limits: limits)
    }

    /// The offset of the CR of the CRLF that ends the line starting at `from`. A bare LF is
    /// refused (RFC 9112 2.2 allows accepting it; a strict parser cannot be smuggled past).
    /// A bare CR inside the line is left to the byte rules of the line, which refuse it.
    private static func endOfLine(_ p: UnsafeRawBufferPointer, from: Int) throws(HTTPParseError) -> Int {
        guard let lf = ASCII.firstLF(p, from: from, to: p.count) else {
            throw .badRequest("incomplete head")
        }
        guard lf > from, p[lf - 1] == ASCII.cr else { throw .badRequest("bare LF in the head") }
        return lf - 1
    }
}

/// The fields that decide framing and connection handling, gathered while the head is read.
private struct FramingFields {
    var hostCount = 0
    var contentLength: Int?
    var contentLengthOverflow = false
    var transferCodings = 0
    var chunkedCoding = false
    var sawTransferEncoding = false
    var connectionClose = false
    var connectionKeepAlive = false
    var expectContinue = false

    mutating func inspect(_ p: UnsafeRawBufferPointer, _ f: FieldRange) throws(HTTPParseError) {
        let (s, e) = (f.nameStart, f.nameEnd)
        switch e - s {
        case 4 where ASCII.equalsLowercase(p, s, e, "host"):
            hostCount += 1
        case 6 where ASCII.equalsLowercase(p, s, e, "expect"):
            var list = ListElements(p, f.valueStart, f.valueEnd)
            while let r = list.next() {
                if ASCII.equalsLowercase(p, r.lowerBound, r.upperBound, "100-continue") { expectContinue = true }
            }
        case 10 where ASCII.equalsLowercase(p, s, e, "connection"):
            var list = ListElements(p, f.valueStart, f.valueEnd)
            while let r = list.next() {
                if ASCII.equalsLowercase(p, r.lowerBound, r.upperBound, "close") { connectionClose = true }
                if ASCII.equalsLowercase(p, r.lowerBound, r.upperBound, "keep-alive") { connectionKeepAlive = true }
            }
        case 14 where ASCII.equalsLowercase(p, s, e, "content-length"):
            try inspectContentLength(p, f)
        case 17 where ASCII.equalsLowercase(p, s, e, "transfer-encoding"):
            sawTransferEncoding = true
            var list = ListElements(p, f.valueStart, f.valueEnd)
            // Empty list elements do not count (RFC 9110 5.6.1).
            while let r = list.next() {
                if r.isEmpty { continue }
                transferCodings += 1
                if ASCII.equalsLowercase(p, r.lowerBound, r.upperBound, "chunked") { chunkedCoding = true }
            }
        default:
            break
        }
    }

    /// `1*DIGIT`, or a list of equal values as some clients repeat it (RFC 9110 8.6). A value
    /// past Int saturates: it is over any body limit, so it ends as 413, never as a wrap.
    private mutating func inspectContentLength(_ p: UnsafeRawBufferPointer, _ f: FieldRange) throws(HTTPParseError) {
        var list = ListElements(p, f.valueStart, f.valueEnd)
        while let r = list.next() {
            guard !r.isEmpty else { throw .badRequest("empty Content-Length") }
            var value = 0
            var overflow = false
            for i in r {
                let b = p[i]
                guard b >= 0x30 && b <= 0x39 else { throw .badRequest("invalid Content-Length") }
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int(b &- 0x30))
                if o1 || o2 { overflow = true; value = Int.max } else { value = sum }
            }
            if let known = contentLength, known != value || overflow != contentLengthOverflow {
                throw .badRequest("conflicting Content-Length values")
            }
            contentLength = value
            contentLengthOverflow = overflow
        }
    }

    func finish(requestLine: RequestLine, fields: [FieldRange], limits: HTTPParserLimits) throws(HTTPParseError) -> ParsedHead {
        let version = requestLine.version
        // RFC 9112 3.2: a 1.1 request has exactly one Host; two are never valid.
        if hostCount > 1 { throw .badRequest("more than one Host field") }
        if hostCount == 0 && version == .http11 { throw .badRequest("missing Host field") }
        if sawTransferEncoding {
            // RFC 9112 6.1: both framings at once is the shape of request smuggling.
            if contentLength != nil { throw .badRequest("both Transfer-Encoding and Content-Length") }
            if version == .http10 { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            if transferCodings == 0 { throw .badRequest("empty Transfer-Encoding") }
            guard transferCodings == 1 && chunkedCoding else {
                throw .notImplemented("transfer coding other than chunked")
            }
        }
        if let length = contentLength, contentLengthOverflow || length > limits.maxBodyBytes {
            throw .payloadTooLarge
        }
        let hasBody = sawTransferEncoding || (contentLength ?? 0) > 0
        let keepAlive = version == .http11 ? !connectionClose : (connectionKeepAlive && !connectionClose)
        return ParsedHead(
            requestLine: requestLine,
            fields: fields,
            contentLength: contentLength,
            isChunked: sawTransferEncoding,
            // RFC 9110 10.1.1: a 1.0 request's 100-continue is ignored; without a body
            // there is nothing to wait for, so no interim answer is due either.
            expectsContinue: expectContinue && version == .http11 && hasBody,
            keepAlive: keepAlive
        )
    }
}
