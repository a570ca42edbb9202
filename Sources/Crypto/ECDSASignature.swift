/// ECDSA signatures in the two shapes that meet here: OpenSSL's DER
/// (`SEQUENCE { INTEGER r, INTEGER s }`) and the JWS shape (RFC 7518 3.4), `r || s` with each
/// integer left-padded to the curve's size. APNs and VAPID (JWS `ES256`) take only the second.
public enum ECDSASignature {
    /// The raw `r || s` of a DER signature, each `width` bytes (32 for P-256); nil when the
    /// DER is not exactly one such sequence or an integer does not fit.
    public static func raw(fromDER der: [UInt8], width: Int = 32) -> [UInt8]? {
        var reader = DERReader(bytes: der)
        guard let sequence = reader.read(tag: 0x30), reader.isAtEnd else { return nil }
        var inner = DERReader(bytes: sequence)
        guard let r = inner.read(tag: 0x02), let s = inner.read(tag: 0x02), inner.isAtEnd,
              let paddedR = unsigned(r, width: width), let paddedS = unsigned(s, width: width) else { return nil }
        return paddedR + paddedS
    }

    /// The DER signature OpenSSL verifies for a raw `r || s` of two equal halves; nil for an
    /// odd length or one too long for a one-byte DER length. The halves' leading zeros are
    /// dropped and a zero put before a high bit, as DER's minimal positive INTEGER wants.
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard !raw.isEmpty, raw.count % 2 == 0, raw.count <= 2 * 61 else { return nil }
        let half = raw.count / 2
        let body = integer(raw[0..<half]) + integer(raw[half...])
        return [0x30] + length(body.count) + body
    }

    private static func integer(_ digits: ArraySlice<UInt8>) -> [UInt8] {
        var minimal = Array(digits.drop { $0 == 0 })
        if minimal.isEmpty || minimal[0] & 0x80 != 0 { minimal.insert(0, at: 0) }
        return [0x02, UInt8(minimal.count)] + minimal
    }

    private static func length(_ count: Int) -> [UInt8] {
        count < 0x80 ? [UInt8(count)] : [0x81, UInt8(count)]
    }

    /// A positive DER INTEGER as exactly `width` big-endian bytes: the sign byte DER adds
    /// before a high bit is dropped, and the leading zeros DER drops are put back.
    private static func unsigned(_ integer: ArraySlice<UInt8>, width: Int) -> [UInt8]? {
        guard let first = integer.first, first & 0x80 == 0 else { return nil }
        // DER's minimal form: a leading zero only before a byte with the high bit set.
        if first == 0, integer.count > 1, integer[integer.startIndex + 1] & 0x80 == 0 { return nil }
        let digits = integer.drop { $0 == 0 }
        guard digits.count <= width else { return nil }
        return [UInt8](repeating: 0, count: width - digits.count) + digits
    }

    private struct DERReader {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) { self.bytes = bytes }
        init(bytes: ArraySlice<UInt8>) { self.bytes = Array(bytes) }

        var isAtEnd: Bool { offset == bytes.count }

        /// The contents of the next element if its tag is `tag`. Lengths in short form, or
        /// long form of one byte (a P-256 or P-384 signature is never longer).
        mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
            guard offset + 2 <= bytes.count, bytes[offset] == tag else { return nil }
            var length = Int(bytes[offset + 1])
            var start = offset + 2
            if length == 0x81 {
                guard start < bytes.count, bytes[start] >= 0x80 else { return nil }
                length = Int(bytes[start])
                start += 1
            } else if length > 0x80 {
                return nil
            }
            guard length > 0 || tag != 0x02, start + length <= bytes.count else { return nil }
            offset = start + length
            return bytes[start..<(start + length)]
        }
    }
}
