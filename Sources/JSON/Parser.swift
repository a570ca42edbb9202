/// The parsing state machine behind `JSONParser`.
///
/// Values of open containers wait in one flat `pending` array and keys of open objects in
/// `pendingKeys`; a frame remembers where its own values start. Closing a container moves its
/// slice out in one go. Growth is amortised over the whole document, unlike a fresh array per
/// container built by recursion, and depth costs no call stack.
struct Parser {
    private struct Frame {
        var isObject: Bool
        var valuesStart: Int
        var keysStart: Int
    }

    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    var index = 0
    /// Reused for strings with escapes, so each such string costs one allocation (its own).
    var scratch: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = max(0, maxDepth)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        let end = bytes.count
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONParseError(.byteOrderMark, at: 0)
        }
        skipWhitespace()
        guard index < end else { throw JSONParseError(.empty, at: index) }

        var frames: [Frame] = []
        var pending: [JSON] = []
        var pendingKeys: [String] = []
        var value: JSON

        nextValue: while true {
            guard index < end else { throw JSONParseError(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard frames.count < maxDepth else { throw JSONParseError(.depthLimitExceeded, at: index) }
                let isObject = byte == UInt8(ascii: "{")
                index += 1
                skipWhitespace()
                if index < end, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    frames.append(Frame(isObject: isObject, valuesStart: pending.count, keysStart: pendingKeys.count))
                    if isObject {
                        pendingKeys.append(try parseKey())
                    }
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
                guard let frame = frames.last else {
                    skipWhitespace()
                    guard index == end else { throw JSONParseError(.trailingData, at: index) }
                    return value
                }
                pending.append(value)
                skipWhitespace()
                guard index < end else { throw JSONParseError(.unexpectedEnd, at: index) }
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if frame.isObject {
                        pendingKeys.append(try parseKey())
                    }
                    continue nextValue
                }
                guard byte == (frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw JSONParseError(.unexpectedByte(byte), at: index)
                }
                index += 1
                frames.removeLast()
                if frame.isObject {
                    value = .object(Self.takeObject(&pending, &pendingKeys, from: frame))
                } else {
                    value = .array(Array(pending[frame.valuesStart...]))
                    pending.removeSubrange(frame.valuesStart...)
                }
            }
        }
    }

    private static func takeObject(_ pending: inout [JSON], _ pendingKeys: inout [String], from frame: Frame) -> JSONObject {
        let count = pending.count - frame.valuesStart
        var members: [(key: String, value: JSON)] = []
        members.reserveCapacity(count)
        for offset in 0..<count {
            members.append((key: pendingKeys[frame.keysStart + offset], value: pending[frame.valuesStart + offset]))
        }
        pending.removeSubrange(frame.valuesStart...)
        pendingKeys.removeSubrange(frame.keysStart...)
        return JSONObject(members)
    }

    /// A member name and its colon, leaving the index at the member's value.
    private mutating func parseKey() throws(JSONParseError) -> String {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw JSONParseError(.unexpectedByte(bytes[index]), at: index)
        }
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard bytes[index] == UInt8(ascii: ":") else {
            throw JSONParseError(.unexpectedByte(bytes[index]), at: index)
        }
        index += 1
        skipWhitespace()
        return key
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        index = try NumberGrammar.scan(bytes, from: start)
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(validatedLiteral: text)
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let letters = word.utf8Start
        for k in 0..<count {
            guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
            guard bytes[index] == letters[k] else {
                throw JSONParseError(.unexpectedByte(bytes[index]), at: index)
            }
            index += 1
        }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}
