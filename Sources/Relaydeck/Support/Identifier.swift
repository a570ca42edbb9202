/// Makes the opaque IDs of the contract: a prefix (`acc_`, `key_`, ...) and 26 characters of
/// lowercase Crockford base32 holding a 48-bit millisecond time and 80 random bits (the ULID
/// layout), so IDs sort by creation time and never collide in practice.
public enum Identifier {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
    /// The same digits as a 64-bit pair read by position, so that writing one needs no
    /// array (the arrays of the first version were 4,300 instructions of an activity entry).
    private static let digits: (UInt64, UInt64, UInt64, UInt64) = alphabet.withUnsafeBytes { bytes in
        (bytes.load(fromByteOffset: 0, as: UInt64.self), bytes.load(fromByteOffset: 8, as: UInt64.self),
         bytes.load(fromByteOffset: 16, as: UInt64.self), bytes.load(fromByteOffset: 24, as: UInt64.self))
    }

    public static func make(_ prefix: StaticString, millis: Int64, random: any RandomSource) -> String {
        let prefixLength = prefix.utf8CodeUnitCount
        // The 128 bits, big-endian: 48 of time, then the 10 random bytes in the order drawn.
        var value: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &value) { random.fill(UnsafeMutableRawBufferPointer(rebasing: $0[6..<16])) }
        let time = UInt64(max(0, millis)) & 0xFFFF_FFFF_FFFF
        let high = time << 16 | (UInt64(bigEndian: value.0) & 0xFFFF)
        let low = UInt64(bigEndian: value.1)
        return String(unsafeUninitializedCapacity: prefixLength + 26) { text in
            text.baseAddress!.update(from: prefix.utf8Start, count: prefixLength)
            withUnsafeBytes(of: digits) { alphabet in
                // 128 bits as 26 base32 digits (130 bits): two zero bits on top, so the first
                // digit holds the top 3 bits. Digit i takes bits [125 - 5i, 130 - 5i) of the
                // 130, counted from the bottom.
                for index in 0..<26 {
                    let shift = 125 - 5 * index
                    let value: UInt64
                    if shift >= 64 {
                        value = high >> UInt64(shift - 64)
                    } else if shift > 59 {
                        value = (high << UInt64(64 - shift)) | (low >> UInt64(shift))
                    } else {
                        value = low >> UInt64(shift)
                    }
                    text[prefixLength + index] = alphabet[Int(value & 31)]
                }
            }
            return prefixLength + 26
        }
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
