/// Why JSON text was rejected, and where.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The input ended inside a value.
        case unexpectedEnd
        /// A byte that cannot start or continue anything here.
        case unexpectedByte(UInt8)
        /// A number breaks the grammar: "-", "1.", "1e", "01".
        case invalidNumber
        /// Never thrown by `JSONParser`, which accepts numbers beyond `Double`'s range (see
        /// `JSONNumber.double`); kept for callers that reject a number their field cannot hold.
        case numberOutOfRange
        /// A backslash followed by anything but `" \ / b f n r t u`.
        case invalidEscape
        /// `\u` not followed by four hex digits.
        case invalidUnicodeEscape
        /// A `\uD800`-`\uDFFF` escape that is not half of a high-low pair; a Swift string cannot
        /// hold it.
        case loneSurrogate
        /// Bytes inside a string that are not well-formed UTF-8 (overlong forms, encoded
        /// surrogates, beyond U+10FFFF, stray or missing continuation bytes).
        case invalidUTF8
        /// A raw byte below 0x20 inside a string; it must be escaped.
        case controlCharacterInString
        /// Arrays and objects nested deeper than the parser's `maxDepth`.
        case depthLimitExceeded
        /// More non-empty arrays and objects than the parser's `maxContainers`.
        case tooManyContainers
        /// Something other than whitespace after the value.
        case trailingData
        /// The input starts with a UTF-8 byte order mark, which RFC 8259 forbids senders to add.
        case byteOrderMark
        /// No value at all: no bytes, or only whitespace.
        case empty
    }

    public let reason: Reason
    /// Byte offset into the input where the problem was found.
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// For example "unexpected byte 0x7D at offset 12".
    public var description: String {
        "\(reason.text) at offset \(offset)"
    }
}

extension JSONParseError.Reason {
    fileprivate var text: String {
        switch self {
        case .unexpectedEnd: "unexpected end of input"
        case .unexpectedByte(let byte): "unexpected byte 0x\(Self.hex(byte))"
        case .invalidNumber: "invalid number"
        case .numberOutOfRange: "number out of range"
        case .invalidEscape: "invalid escape"
        case .invalidUnicodeEscape: "invalid \\u escape"
        case .loneSurrogate: "lone surrogate escape"
        case .invalidUTF8: "invalid UTF-8"
        case .controlCharacterInString: "control character in string"
        case .depthLimitExceeded: "nesting too deep"
        case .tooManyContainers: "too many arrays and objects"
        case .trailingData: "data after the value"
        case .byteOrderMark: "byte order mark"
        case .empty: "no value"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }
}
