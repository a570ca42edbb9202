/// Makes the opaque IDs of the contract: a prefix (`acc_`, `key_`, ...) and 26 characters of
/// lowercase Crockford base32 holding a 48-bit millisecond time and 80 random bits (the ULID
/// layout), so IDs sort by creation time and never collide in practice.
public enum Identifier {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    public static func make(_ prefix: StaticString, millis: Int64, random: any RandomSource) -> String {
        var value = [UInt8](repeating: 0, count: 16)
        let time = UInt64(max(0, millis)) & 0xFFFF_FFFF_FFFF
        for i in 0..<6 {
            value[i] = UInt8(truncatingIfNeeded: time >> (8 * (5 - i)))
        }
        let entropy = random.bytes(10)
        value.replaceSubrange(6..<16, with: entropy)
        var text = [UInt8]()
        text.reserveCapacity(prefix.utf8CodeUnitCount + 26)
        text.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        // 128 bits as 26 base32 digits (130 bits): two zero bits on top, so the first digit
        // holds the top 3 bits.
        var bits = 2
        var accumulator: UInt32 = 0
        var digits: [UInt8] = []
        digits.reserveCapacity(26)
        for byte in value {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                digits.append(alphabet[Int((accumulator >> UInt32(bits)) & 31)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        text.append(contentsOf: digits)
        return String(decoding: text, as: UTF8.self)
    }

    /// True when `text` has the shape of an ID with this prefix; a cheap filter before the
    /// store is asked.
    public static func isWellFormed(_ text: Substring, prefix: StaticString) -> Bool {
        let utf8 = text.utf8
        let prefixLength = prefix.utf8CodeUnitCount
        guard utf8.count == prefixLength + 26 else { return false }
        let prefixBytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefixLength)
        guard utf8.prefix(prefixLength).elementsEqual(prefixBytes) else { return false }
        return utf8.dropFirst(prefixLength).allSatisfy { alphabet.contains($0) }
    }
}
