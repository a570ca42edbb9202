/// The RFC 8259 number grammar, shared by the parser and `JSONNumber(literal:)`:
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
enum NumberGrammar {
    /// Scans one number starting at `start` and returns the offset just past it.
    /// Throws `invalidNumber` at the offset where the grammar fails.
    static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(JSONParseError) -> Int {
        let end = bytes.count
        var j = start
        if j < end, bytes[j] == UInt8(ascii: "-") {
            j += 1
        }
        guard j < end else { throw JSONParseError(.invalidNumber, at: j) }
        if bytes[j] == UInt8(ascii: "0") {
            j += 1
            // "01" would otherwise end the number after "0" and fail later as a stray byte.
            if j < end, isDigit(bytes[j]) { throw JSONParseError(.invalidNumber, at: j) }
        } else if isDigit(bytes[j]) {
            j = skipDigits(bytes, from: j + 1)
        } else {
            throw JSONParseError(.invalidNumber, at: j)
        }
        if j < end, bytes[j] == UInt8(ascii: ".") {
            j += 1
            guard j < end, isDigit(bytes[j]) else { throw JSONParseError(.invalidNumber, at: j) }
            j = skipDigits(bytes, from: j + 1)
        }
        if j < end, bytes[j] | 0x20 == UInt8(ascii: "e") {
            j += 1
            if j < end, bytes[j] == UInt8(ascii: "+") || bytes[j] == UInt8(ascii: "-") {
                j += 1
            }
            guard j < end, isDigit(bytes[j]) else { throw JSONParseError(.invalidNumber, at: j) }
            j = skipDigits(bytes, from: j + 1)
        }
        return j
    }

    /// The value of the valid literal `bytes[start..<end]` when it is an integer as
    /// `String(Int64)` writes it: no fraction or exponent, at most 18 digits (so it cannot
    /// overflow), and not "-0" (whose text would not survive).
    @inline(__always)
    static func plainInteger(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int64? {
        let negative = bytes[start] == UInt8(ascii: "-")
        let digitsStart = negative ? start + 1 : start
        guard end - digitsStart <= 18 else { return nil }
        var value: Int64 = 0
        for j in digitsStart..<end {
            let digit = bytes[j] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
        }
        if negative {
            return value == 0 ? nil : -value
        }
        return value
    }

    /// True when `bytes` holds exactly one number and nothing else.
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return false }
        do {
            return try scan(bytes, from: 0) == bytes.count
        } catch {
            return false
        }
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    private static func skipDigits(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var j = start
        while j < bytes.count, isDigit(bytes[j]) {
            j += 1
        }
        return j
    }
}
