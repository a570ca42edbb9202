/// Why a byte string is not one well-formed CBOR item within the decoder's limits (RFC 8949
/// section 3 and appendix F). Each names the offset of the byte where decoding stopped.
public struct CBORError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        /// The input ends inside an item.
        case truncated = "the input ends inside an item"
        /// Additional information 28, 29 or 30 (reserved).
        case reservedAdditionalInfo = "reserved additional information"
        /// Additional information 31 where no indefinite length exists (major types 0, 1, 6, 7 other than break).
        case indefiniteNotAllowed = "indefinite length on a type that has none"
        /// A break (0xff) outside an indefinite-length item.
        case unexpectedBreak = "a break outside an indefinite-length item"
        /// A chunk of an indefinite-length string that is not a definite string of the same type.
        case badChunk = "a chunk that is not a definite string of the same type"
        /// Text that is not valid UTF-8.
        case invalidUTF8 = "text that is not UTF-8"
        /// A two-byte simple value below 32 (appendix F.1).
        case badSimpleValue = "a two-byte simple value below 32"
        /// Nesting deeper than the limit.
        case tooDeep = "nesting deeper than the limit"
        /// More items than the limit.
        case tooManyItems = "more items than the limit"
        /// A length larger than the input that is left, or than the limit.
        case tooLong = "a length beyond the input or the limit"
        /// Bytes after the item.
        case trailingBytes = "bytes after the item"
        /// A key that appears twice in one map.
        case duplicateKey = "a key twice in one map"
    }

    public let reason: Reason
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}
