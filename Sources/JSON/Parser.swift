/// The parsing state machine behind `JSONParser`.
///
/// Values of open arrays wait in one flat stack and members of open objects in another; a
/// frame remembers where its own start. Closing a container moves its slice out in one go
/// (`PendingStack`), without copying or counting references value by value. Growth is
/// amortised over the whole document, unlike a fresh array per container built by recursion,
/// and depth costs no call stack.
struct Parser {
    private struct Frame {
        var isObject: Bool
        /// Where the container's values (array) or members (object) start in their stack.
        var start: Int
        /// Object: the name of the member whose value is being read.
        var key: String
    }

    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    /// Non-empty arrays and objects one document may hold (`JSONParser.defaultMaxContainers`).
    let maxContainers: Int
    var containers = 0
    var index = 0
    /// Reused for strings with escapes, so each such string costs one allocation (its own).
    var scratch: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int, maxContainers: Int) {
        self.bytes = bytes
        self.maxDepth = max(0, maxDepth)
        self.maxContainers = maxContainers
    }

    /// Counts one more non-empty container, opened at `at`.
    mutating func openContainer(at: Int) throws(JSONParseError) {
        containers += 1
        guard containers <= maxContainers else { throw JSONParseError(.tooManyContainers, at: at) }
    }

    /// Refuses a byte order mark and an empty text; leaves `index` at the first value.
    mutating func startDocument() throws(JSONParseError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONParseError(.byteOrderMark, at: 0)
        }
        skipWhitespace()
        guard index < bytes.count else { throw JSONParseError(.empty, at: index) }
    }

    /// Whitespace only after the value.
    mutating func endDocument() throws(JSONParseError) {
        skipWhitespace()
        guard index == bytes.count else { throw JSONParseError(.trailingData, at: index) }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        try startDocument()
        let end = bytes.count
        var frames: [Frame] = []
        var values = PendingStack<JSON>(filler: .null)
        var members = PendingStack<(key: String, value: JSON)>(filler: (key: "", value: .null))
        var value: JSON

        nextValue: while true {
            guard index < end else { throw JSONParseError(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard frames.count < maxDepth else { throw JSONParseError(.depthLimitExceeded, at: index) }
                let isObject = byte == UInt8(ascii: "{")
                let opened = index
                index += 1
                skipWhitespace()
                if index < end, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    try openContainer(at: opened)
                    frames.append(Frame(isObject: isObject, start: isObject ? members.count : values.count,
                                        key: isObject ? try parseKey() : ""))
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            case UInt8(ascii: "t"):
                try expectWord("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectWord("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectWord("null")
                value = .null
            default:
                throw JSONParseError(.unexpectedByte(byte), at: index)
            }

            // A value is complete: hand it to the innermost open container, closing every
            // container that ends right after it.
            while true {
                let top = frames.count - 1
                guard top >= 0 else {
                    try endDocument()
                    return value
                }
                let isObject = frames[top].isObject
                if isObject {
                    members.push((key: frames[top].key, value: value))
                } else {
                    values.push(value)
                }
                skipWhitespace()
                guard index < end else { throw JSONParseError(.unexpectedEnd, at: index) }
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if isObject {
                        frames[top].key = try parseKey()
                    }
                    continue nextValue
                }
                guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw JSONParseError(.unexpectedByte(byte), at: index)
                }
                index += 1
                let start = frames[top].start
                frames.removeLast()
                value = isObject ? .object(JSONObject(members.take(from: start))) : .array(values.take(from: start))
            }
        }
    }

    /// A member name and its colon, leaving the index at the member's value.
    mutating func parseKey() throws(JSONParseError) -> String {
        try expectQuote()
        let key = try parseString()
        try expectColon()
        return key
    }

    @inline(__always)
    mutating func expectQuote() throws(JSONParseError) {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw JSONParseError(.unexpectedByte(bytes[index]), at: index)
        }
    }

    /// Whitespace, a colon, whitespace.
    @inline(__always)
    mutating func expectColon() throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard bytes[index] == UInt8(ascii: ":") else {
            throw JSONParseError(.unexpectedByte(bytes[index]), at: index)
        }
        index += 1
        skipWhitespace()
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        index = try NumberGrammar.scan(bytes, from: start)
        if let integer = NumberGrammar.plainInteger(bytes, from: start, to: index) {
            return JSONNumber(integer)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(validatedLiteral: text)
    }

    mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        index = try Self.expectWord(word, bytes, at: index)
    }

    /// `word` at `start`; the offset after it.
    @inline(__always)
    static func expectWord(_ word: StaticString, _ bytes: UnsafeRawBufferPointer, at start: Int) throws(JSONParseError) -> Int {
        let letters = word.utf8Start
        var j = start
        for k in 0..<word.utf8CodeUnitCount {
            guard j < bytes.count else { throw JSONParseError(.unexpectedEnd, at: j) }
            guard bytes[j] == letters[k] else { throw JSONParseError(.unexpectedByte(bytes[j]), at: j) }
            j &+= 1
        }
        return j
    }

    @inline(__always)
    mutating func skipWhitespace() {
        index = Self.skipWhitespace(bytes, from: index)
    }

    /// The offset of the first byte at or after `start` that is not whitespace (or `end`).
    @inline(__always)
    static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var j = start
        while j < bytes.count {
            switch bytes[j] {
            case 0x20, 0x0A, 0x0D, 0x09: j &+= 1
            default: return j
            }
        }
        return j
    }
}
