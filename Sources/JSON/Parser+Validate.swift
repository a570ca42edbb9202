// Validation: the same grammar, the same checks and the same errors as `parseDocument`, with
// no value built. Strings are checked in place (UTF-8, escapes, surrogate pairs), numbers by
// the shared grammar, and the open containers are one bit each, so the whole document costs
// one small allocation whatever its shape.
//
// This runs on every body before its credential is read, so a client without one chooses
// its input: the position is a local (not the parser's stored `index`, written back only
// around the calls that need it), whether the innermost container is an object is kept
// rather than looked up for each value, and the common plain integer is scanned here without
// the grammar's call, as are strings and their one-byte escapes (callgrind, per 1 MiB body:
// `[1,1,...]` 60 to 30 million instructions, a string of `\n` escapes 59 to 10 million).

extension Parser {
    mutating func validateDocument() throws(JSONParseError) {
        try startDocument()
        let bytes = self.bytes
        let end = bytes.count
        // Bit `depth` of the words: the container open at that depth is an object.
        var objects = [UInt64](repeating: 0, count: maxDepth / 64 + 1)
        var depth = 0
        var inObject = false
        var i = index

        nextValue: while true {
            guard i < end else { throw JSONParseError(.unexpectedEnd, at: i) }
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "1")...UInt8(ascii: "9"):
                // Digits alone, then a byte that cannot go on a number: the grammar's answer
                // without its call. Anything else goes to the grammar from the start.
                var j = i &+ 1
                while j < end, NumberGrammar.isDigit(bytes[j]) { j &+= 1 }
                if j < end, bytes[j] == UInt8(ascii: ".") || bytes[j] | 0x20 == UInt8(ascii: "e") {
                    j = try NumberGrammar.scan(bytes, from: i)
                }
                i = j
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maxDepth else { throw JSONParseError(.depthLimitExceeded, at: i) }
                let isObject = byte == UInt8(ascii: "{")
                let opened = i
                i &+= 1
                i = Self.skipWhitespace(bytes, from: i)
                if i < end, bytes[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i &+= 1
                } else {
                    try openContainer(at: opened)
                    let bit: UInt64 = 1 << UInt64(depth & 63)
                    if isObject {
                        objects[depth >> 6] |= bit
                        index = i
                        try skipKey()
                        i = index
                    } else {
                        objects[depth >> 6] &= ~bit
                    }
                    inObject = isObject
                    depth += 1
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                i = try skipString(from: i)
            case UInt8(ascii: "-"), UInt8(ascii: "0"):
                i = try NumberGrammar.scan(bytes, from: i)
            case UInt8(ascii: "t"):
                i = try Self.expectWord("true", bytes, at: i)
            case UInt8(ascii: "f"):
                i = try Self.expectWord("false", bytes, at: i)
            case UInt8(ascii: "n"):
                i = try Self.expectWord("null", bytes, at: i)
            default:
                throw JSONParseError(.unexpectedByte(byte), at: i)
            }

            // A value is complete: a comma, or the end of the innermost container and maybe
            // of those around it.
            while true {
                guard depth > 0 else {
                    index = i
                    try endDocument()
                    return
                }
                i = Self.skipWhitespace(bytes, from: i)
                guard i < end else { throw JSONParseError(.unexpectedEnd, at: i) }
                let byte = bytes[i]
                if byte == UInt8(ascii: ",") {
                    i = Self.skipWhitespace(bytes, from: i &+ 1)
                    if inObject {
                        index = i
                        try skipKey()
                        i = index
                    }
                    continue nextValue
                }
                guard byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw JSONParseError(.unexpectedByte(byte), at: i)
                }
                i &+= 1
                depth -= 1
                if depth > 0 {
                    let top = depth - 1
                    inObject = objects[top >> 6] & (1 << UInt64(top & 63)) != 0
                }
            }
        }
    }

    /// A member name and its colon, as `parseKey` reads them.
    private mutating func skipKey() throws(JSONParseError) {
        try expectQuote()
        index = try skipString(from: index)
        try expectColon()
    }

    /// The string whose opening quote is at `quote`, checked as `parseString` checks it (the
    /// same errors at the same offsets: `ValidatorTests`), in one loop: short strings and the
    /// escapes that stand for one byte pay no call. Returns the offset after the closing quote.
    @inline(__always)
    private func skipString(from quote: Int) throws(JSONParseError) -> Int {
        let end = bytes.count
        var j = quote &+ 1
        while j < end {
            let byte = bytes[j]
            if byte == UInt8(ascii: "\"") { return j &+ 1 }
            if byte == UInt8(ascii: "\\") {
                guard j &+ 1 < end else { throw JSONParseError(.unexpectedEnd, at: end) }
                switch bytes[j &+ 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    j &+= 2
                default:
                    j = try escape(at: j).next
                }
                continue
            }
            if byte < 0x20 { throw JSONParseError(.controlCharacterInString, at: j) }
            if byte >= 0x80 {
                j = try skipUTF8Sequence(at: j)
                continue
            }
            j &+= 1
            // Eight plain ASCII bytes at a time once a string is long.
            while j &+ 8 <= end, !Self.needsAttention(bytes.loadUnaligned(fromByteOffset: j, as: UInt64.self)) {
                j &+= 8
            }
        }
        throw JSONParseError(.unexpectedEnd, at: end)
    }
}
