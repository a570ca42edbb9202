// Validation: the same grammar, the same checks and the same errors as `parseDocument`, with
// no value built. Strings are checked in place (UTF-8, escapes, surrogate pairs), numbers by
// the shared grammar, and the open containers are one bit each, so the whole document costs
// one small allocation whatever its shape.

extension Parser {
    mutating func validateDocument() throws(JSONParseError) {
        try startDocument()
        let end = bytes.count
        // Bit `depth` of the words: the container open at that depth is an object.
        var objects = [UInt64](repeating: 0, count: maxDepth / 64 + 1)
        var depth = 0

        nextValue: while true {
            guard index < end else { throw JSONParseError(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maxDepth else { throw JSONParseError(.depthLimitExceeded, at: index) }
                let isObject = byte == UInt8(ascii: "{")
                let opened = index
                index += 1
                skipWhitespace()
                if index < end, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                } else {
                    try openContainer(at: opened)
                    let bit: UInt64 = 1 << UInt64(depth & 63)
                    if isObject {
                        objects[depth >> 6] |= bit
                        try skipKey()
                    } else {
                        objects[depth >> 6] &= ~bit
                    }
                    depth += 1
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                try skipString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                index = try NumberGrammar.scan(bytes, from: index)
            case UInt8(ascii: "t"):
                try expectWord("true")
            case UInt8(ascii: "f"):
                try expectWord("false")
            case UInt8(ascii: "n"):
                try expectWord("null")
            default:
                throw JSONParseError(.unexpectedByte(byte), at: index)
            }

            // A value is complete: a comma, or the end of the innermost container and maybe
            // of those around it.
            while true {
                guard depth > 0 else {
                    try endDocument()
                    return
                }
                let top = depth - 1
                let isObject = objects[top >> 6] & (1 << UInt64(top & 63)) != 0
                skipWhitespace()
                guard index < end else { throw JSONParseError(.unexpectedEnd, at: index) }
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if isObject {
                        try skipKey()
                    }
                    continue nextValue
                }
                guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw JSONParseError(.unexpectedByte(byte), at: index)
                }
                index += 1
                depth -= 1
            }
        }
    }

    /// A member name and its colon, as `parseKey` reads them.
    private mutating func skipKey() throws(JSONParseError) {
        try expectQuote()
        try skipString()
        try expectColon()
    }
}
