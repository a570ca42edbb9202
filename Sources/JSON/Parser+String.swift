// Strings: the hot part of parsing. A string without escapes is validated in place and
// becomes a `String` in one call from its slice; only strings with escapes are copied through
// the scratch buffer.

extension Parser {
    /// Parses the string whose opening quote is at `index`; leaves `index` past the closing quote.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = index + 1
        var j = try scanPlain(from: start)
        if bytes[j] == UInt8(ascii: "\"") {
            index = j + 1
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<j]), as: UTF8.self)
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<j]))
        while true {
            // bytes[j] is a backslash here.
            let runStart = try appendEscape(at: j)
            j = try scanPlain(from: runStart)
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<j]))
            if bytes[j] == UInt8(ascii: "\"") {
                index = j + 1
                return String(decoding: scratch, as: UTF8.self)
            }
        }
    }

    /// Skips bytes that stand for themselves (printable ASCII and well-formed UTF-8) and returns
    /// the offset of the next quote or backslash.
    func scanPlain(from start: Int) throws(JSONParseError) -> Int {
        let end = bytes.count
        var j = start
        while j < end {
            // Eight plain ASCII bytes at a time: the common case for keys and text.
            if j &+ 8 <= end {
                let word = bytes.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                if !Self.needsAttention(word) {
                    j += 8
                    continue
                }
            }
            let byte = bytes[j]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return j
            }
            if byte < 0x20 {
                throw JSONParseError(.controlCharacterInString, at: j)
            }
            j = byte < 0x80 ? j + 1 : try skipUTF8Sequence(at: j)
        }
        throw JSONParseError(.unexpectedEnd, at: end)
    }

    /// True when a byte of `word` is a quote, a backslash, below 0x20 or non-ASCII.
    /// The classic "has zero byte" bit tricks, exact for whether any byte matches.
    @inline(__always)
    static func needsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highs != 0
    }

    /// Validates the multi-byte sequence led by `bytes[j]` (Unicode table 3-7: no overlong
    /// forms, no surrogates, nothing above U+10FFFF) and returns the offset after it.
    func skipUTF8Sequence(at j: Int) throws(JSONParseError) -> Int {
        let lead = bytes[j]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw JSONParseError(.invalidUTF8, at: j)
        }
        guard j + length <= bytes.count else {
            throw JSONParseError(.unexpectedEnd, at: bytes.count)
        }
        let second = bytes[j + 1]
        guard second >= low, second <= high else { throw JSONParseError(.invalidUTF8, at: j) }
        var k = j + 2
        while k < j + length {
            guard bytes[k] & 0xC0 == 0x80 else { throw JSONParseError(.invalidUTF8, at: j) }
            k += 1
        }
        return k
    }

    /// Appends what the escape at `j` stands for to `scratch`; returns the offset after it.
    private mutating func appendEscape(at j: Int) throws(JSONParseError) -> Int {
        let (scalar, next) = try escape(at: j)
        appendUTF8(scalar)
        return next
    }

    /// The scalar the escape whose backslash is at `j` stands for, and the offset after it.
    func escape(at j: Int) throws(JSONParseError) -> (scalar: UInt32, next: Int) {
        guard j + 1 < bytes.count else { throw JSONParseError(.unexpectedEnd, at: bytes.count) }
        switch bytes[j + 1] {
        case UInt8(ascii: "\""): return (0x22, j + 2)
        case UInt8(ascii: "\\"): return (0x5C, j + 2)
        case UInt8(ascii: "/"): return (0x2F, j + 2)
        case UInt8(ascii: "b"): return (0x08, j + 2)
        case UInt8(ascii: "f"): return (0x0C, j + 2)
        case UInt8(ascii: "n"): return (0x0A, j + 2)
        case UInt8(ascii: "r"): return (0x0D, j + 2)
        case UInt8(ascii: "t"): return (0x09, j + 2)
        case UInt8(ascii: "u"): return try unicodeEscape(at: j)
        default: throw JSONParseError(.invalidEscape, at: j)
        }
    }

    /// `\uXXXX`, or a `\uD8xx\uDCxx` pair combined into one scalar. A surrogate escape that is
    /// not half of such a pair is rejected: a Swift string cannot hold it, and replacing it
    /// with U+FFFD would silently change the client's data.
    private func unicodeEscape(at j: Int) throws(JSONParseError) -> (scalar: UInt32, next: Int) {
        let first = try hexQuad(at: j)
        let next = j + 6
        switch first {
        case 0xD800...0xDBFF:
            guard next + 1 < bytes.count,
                  bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                throw JSONParseError(.loneSurrogate, at: j)
            }
            let second = try hexQuad(at: next)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw JSONParseError(.loneSurrogate, at: j)
            }
            return (0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00), next + 6)
        case 0xDC00...0xDFFF:
            throw JSONParseError(.loneSurrogate, at: j)
        default:
            return (UInt32(first), next)
        }
    }

    /// The four hex digits of the `\u` escape whose backslash is at `j`.
    private func hexQuad(at j: Int) throws(JSONParseError) -> UInt16 {
        guard j + 6 <= bytes.count else { throw JSONParseError(.unexpectedEnd, at: bytes.count) }
        var value: UInt16 = 0
        for k in (j + 2)..<(j + 6) {
            let byte = bytes[k]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(.invalidUnicodeEscape, at: j)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8((scalar >> 12) & 0x3F))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }
}
