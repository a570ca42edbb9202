/// A strict, bounded CBOR decoder (RFC 8949). It accepts definite and indefinite lengths and
/// refuses every input that is not well-formed (appendix F), text that is not UTF-8, and maps
/// with a repeated key. The input comes from the network (`app-integrity.md#create-the-account`),
/// so each limit is checked before the work it bounds: a length before any allocation, the
/// depth before recursing, the item count before decoding an item. Every loop consumes at
/// least one byte, so no input makes it hang.
public struct CBORDecoder {
    public struct Limits: Sendable {
        /// The deepest nesting of arrays, maps and tags; the recursion never goes further.
        public var maxDepth = 16
        /// Data items in the whole input, counting every element, key, value and chunk.
        public var maxItems = 4096
        /// The longest input, and so the longest string.
        public var maxBytes = 65_536

        public init() {}
    }

    private let input: [UInt8]
    private let limits: Limits
    private var position = 0
    private var items = 0

    private init(_ input: [UInt8], limits: Limits) {
        self.input = input
        self.limits = limits
    }

    /// Decodes `bytes` as exactly one item: anything after it is an error.
    public static func decode(_ bytes: [UInt8], limits: Limits = Limits()) throws(CBORError) -> CBOR {
        let (item, length) = try decodePrefix(bytes, limits: limits)
        guard length == bytes.count else { throw CBORError(.trailingBytes, at: length) }
        return item
    }

    /// Decodes the first item of `bytes`, and says how many bytes it took. Authenticator data
    /// carries a COSE key followed by more bytes, so its reader needs the length.
    public static func decodePrefix(_ bytes: [UInt8], limits: Limits = Limits()) throws(CBORError) -> (CBOR, Int) {
        guard bytes.count <= limits.maxBytes else { throw CBORError(.tooLong, at: 0) }
        var decoder = CBORDecoder(bytes, limits: limits)
        let item = try decoder.item(depth: 0)
        return (item, decoder.position)
    }

    // MARK: Items

    /// The head of an item: major type and either an argument or "indefinite".
    private struct Head {
        let major: UInt8
        let info: UInt8
        let argument: UInt64
        var indefinite: Bool { info == 31 }
    }

    private mutating func item(depth: Int) throws(CBORError) -> CBOR {
        let start = position
        guard depth <= limits.maxDepth else { throw CBORError(.tooDeep, at: start) }
        items += 1
        guard items <= limits.maxItems else { throw CBORError(.tooManyItems, at: start) }
        let head = try readHead()
        switch head.major {
        case 0:
            guard !head.indefinite else { throw CBORError(.indefiniteNotAllowed, at: start) }
            return .unsigned(head.argument)
        case 1:
            guard !head.indefinite else { throw CBORError(.indefiniteNotAllowed, at: start) }
            return .negative(head.argument)
        case 2:
            return .bytes(try string(head, at: start))
        case 3:
            let bytes = try string(head, at: start)
            guard let text = String(validating: bytes, as: UTF8.self) else { throw CBORError(.invalidUTF8, at: start) }
            return .text(text)
        case 4:
            var elements: [CBOR] = []
            try forEachMember(head, at: start, pairs: false) { (decoder: inout CBORDecoder) throws(CBORError) in
                elements.append(try decoder.item(depth: depth + 1))
            }
            return .array(elements)
        case 5:
            var entries: [CBOR.Entry] = []
            var keys = Set<CBOR>()
            try forEachMember(head, at: start, pairs: true) { (decoder: inout CBORDecoder) throws(CBORError) in
                let keyStart = decoder.position
                let key = try decoder.item(depth: depth + 1)
                guard keys.insert(key).inserted else { throw CBORError(.duplicateKey, at: keyStart) }
                entries.append(CBOR.Entry(key, try decoder.item(depth: depth + 1)))
            }
            return .map(entries)
        case 6:
            guard !head.indefinite else { throw CBORError(.indefiniteNotAllowed, at: start) }
            return .tagged(head.argument, try item(depth: depth + 1))
        default:
            return try simple(head, at: start)
        }
    }

    /// Reads the initial byte and its argument (section 3.1).
    private mutating func readHead() throws(CBORError) -> Head {
        let start = position
        guard position < input.count else { throw CBORError(.truncated, at: start) }
        let initial = input[position]
        position += 1
        let major = initial >> 5
        let info = initial & 0x1F
        switch info {
        case 0...23:
            return Head(major: major, info: info, argument: UInt64(info))
        case 24...27:
            let width = 1 << Int(info - 24)
            guard input.count - position >= width else { throw CBORError(.truncated, at: start) }
            var value: UInt64 = 0
            for byte in input[position..<(position + width)] { value = value << 8 | UInt64(byte) }
            position += width
            return Head(major: major, info: info, argument: value)
        case 31:
            return Head(major: major, info: info, argument: 0)
        default:
            throw CBORError(.reservedAdditionalInfo, at: start)
        }
    }

    /// A byte or text string's bytes; an indefinite one is the concatenation of definite
    /// chunks of the same major type (section 3.2.3).
    private mutating func string(_ head: Head, at start: Int) throws(CBORError) -> [UInt8] {
        guard head.indefinite else { return try take(head.argument, at: start) }
        var joined: [UInt8] = []
        while true {
            let chunkStart = position
            guard position < input.count else { throw CBORError(.truncated, at: chunkStart) }
            if input[position] == 0xFF {
                position += 1
                return joined
            }
            items += 1
            guard items <= limits.maxItems else { throw CBORError(.tooManyItems, at: chunkStart) }
            let chunk = try readHead()
            guard chunk.major == head.major, !chunk.indefinite else { throw CBORError(.badChunk, at: chunkStart) }
            joined += try take(chunk.argument, at: chunkStart)
        }
    }

    /// The next `length` bytes, refused before any allocation when the input is shorter.
    private mutating func take(_ length: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
        guard length <= UInt64(input.count - position) else { throw CBORError(.tooLong, at: start) }
        let end = position + Int(length)
        defer { position = end }
        return Array(input[position..<end])
    }

    /// Calls `member` once per element (or key and value pair) of an array or map, for a
    /// definite count or up to the break. A count can never exceed the bytes left, since each
    /// member takes at least one byte: that check stops a huge count before the loop.
    private mutating func forEachMember(_ head: Head, at start: Int, pairs: Bool,
                                        _ member: (inout CBORDecoder) throws(CBORError) -> Void) throws(CBORError) {
        if head.indefinite {
            while true {
                guard position < input.count else { throw CBORError(.truncated, at: position) }
                if input[position] == 0xFF {
                    position += 1
                    return
                }
                try member(&self)
            }
        }
        let (perMember, overflow) = head.argument.multipliedReportingOverflow(by: pairs ? 2 : 1)
        guard !overflow, perMember <= UInt64(input.count - position) else { throw CBORError(.tooLong, at: start) }
        for _ in 0..<head.argument {
            try member(&self)
        }
    }

    /// Major type 7 (section 3.3): simple values, floats, and the break, which is only valid
    /// where an indefinite-length item reads it itself.
    private func simple(_ head: Head, at start: Int) throws(CBORError) -> CBOR {
        switch head.info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0...19: return .simple(head.info)
        case 24:
            guard head.argument >= 32 else { throw CBORError(.badSimpleValue, at: start) }
            return .simple(UInt8(head.argument))
        case 25: return .float(Self.half(UInt16(head.argument)))
        case 26: return .float(Double(Float(bitPattern: UInt32(head.argument))))
        case 27: return .float(Double(bitPattern: head.argument))
        default: throw CBORError(.unexpectedBreak, at: start)
        }
    }

    /// IEEE 754 binary16 (RFC 8949 appendix D), without relying on the platform's Float16.
    static func half(_ bits: UInt16) -> Double {
        let exponent = Int((bits >> 10) & 0x1F)
        let mantissa = Double(bits & 0x3FF)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return bits & 0x8000 != 0 ? -magnitude : magnitude
    }
}
