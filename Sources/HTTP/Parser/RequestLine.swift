/// The parts of a request line, as offsets into the head bytes.
struct RequestLine {
    var method: HTTPMethod
    var version: HTTPVersion
    var targetStart: Int
    var targetEnd: Int
    /// Offset of the first `?` in the target, if any.
    var queryMark: Int?

    /// Parses `method SP request-target SP HTTP-version` in `p[0..<end]` (no CRLF).
    ///
    /// Exactly one SP between the parts (RFC 9112 3 allows a lenient parser to accept
    /// more; we do not, so that no two parsers on the path split the line differently).
    /// Origin-form targets, `OPTIONS *`, and absolute-form (`http://host/path`, which RFC 9112
    /// 3.2.2 says a server must accept): the target then starts at its path, so the rest of
    /// the server sees origin-form. Authority-form is refused with 400 (no CONNECT here).
    init(_ p: UnsafeRawBufferPointer, end: Int, maxTargetBytes: Int = .max) throws(HTTPParseError) {
        var k = 0
        while k < end && ASCII.isTchar(p[k]) { k += 1 }
        let methodEnd = k
        guard k < end, p[k] == ASCII.sp else { throw .badRequest("malformed request line") }
        k += 1
        let targetStart = k
        var queryMark: Int?
        while k < end && p[k] != ASCII.sp {
            let b = p[k]
            guard b >= 0x21 && b <= 0x7E else { throw .badRequest("invalid byte in the request target") }
            if b == ASCII.question && queryMark == nil { queryMark = k }
            k += 1
        }
        let targetEnd = k
        guard k < end else { throw .badRequest("malformed request line") }
        guard targetEnd - targetStart <= maxTargetBytes else { throw .uriTooLong }
        guard methodEnd > 0 else { throw .badRequest("empty method") }
        guard targetEnd > targetStart else { throw .badRequest("empty request target") }
        // The version before the target's form, so the HTTP/2 preface (`PRI * HTTP/2.0`)
        // is told 505 rather than 400.
        let version = try Self.version(p, k + 1, end)
        let method = HTTPMethod(token: p, 0, methodEnd)
        var pathStart = targetStart
        if p[targetStart] != ASCII.slash {
            if let afterAuthority = Self.endOfAbsoluteFormAuthority(p, targetStart, targetEnd) {
                pathStart = afterAuthority
            } else {
                guard targetEnd - targetStart == 1, p[targetStart] == ASCII.asterisk else {
                    throw .badRequest("request target is not in origin-form")
                }
                guard method == .options else { throw .badRequest("asterisk target without OPTIONS") }
            }
        }
        self.method = method
        self.version = version
        self.targetStart = pathStart
        self.targetEnd = targetEnd
        self.queryMark = queryMark
    }

    /// For `http://authority...` or `https://authority...` (scheme in any case), the offset
    /// just after the non-empty authority: the path's `/`, a `?`, or the end. Nil for any
    /// other target.
    private static func endOfAbsoluteFormAuthority(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int? {
        var k = start
        for expected in "http".utf8 {
            guard k < end, p[k] | 0x20 == expected else { return nil }
            k += 1
        }
        if k < end, p[k] | 0x20 == UInt8(ascii: "s") { k += 1 }
        for expected in "://".utf8 {
            guard k < end, p[k] == expected else { return nil }
            k += 1
        }
        let authorityStart = k
        while k < end && p[k] != ASCII.slash && p[k] != ASCII.question { k += 1 }
        return k > authorityStart ? k : nil
    }

    /// `HTTP/1.1` and `HTTP/1.0` are served. Another `HTTP/d.d`, or `HTTP/d` as HTTP/2 and
    /// HTTP/3 are written, is a version we do not speak (505); anything else, including a
    /// lowercase name (the name is case-sensitive, RFC 9112 2.3), is not HTTP (400).
    private static func version(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) throws(HTTPParseError) -> HTTPVersion {
        let name: StaticString = "HTTP/"
        let length = end - start
        guard length == 6 || length == 8 else { throw .badRequest("malformed HTTP version") }
        let n = name.utf8Start
        for i in 0..<5 where p[start + i] != n[i] { throw .badRequest("malformed HTTP version") }
        let major = p[start + 5]
        guard major >= 0x30 && major <= 0x39 else { throw .badRequest("malformed HTTP version") }
        guard length == 8 else { throw .versionNotSupported }
        let minor = p[start + 7]
        guard p[start + 6] == ASCII.dot, minor >= 0x30 && minor <= 0x39 else {
            throw .badRequest("malformed HTTP version")
        }
        guard major == 0x31 else { throw .versionNotSupported }
        switch minor {
        case 0x31: return .http11
        case 0x30: return .http10
        default: throw .versionNotSupported
        }
    }
}
