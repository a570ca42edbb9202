/// The nonce in the credential certificate's extension 1.2.840.113635.100.8.2
/// (`app-integrity.md#what-the-server-validates`, step 2): DER
/// `SEQUENCE { [1] EXPLICIT OCTET STRING }`. Read here with a small DER reader, so only
/// OpenSSL's own parsing of the certificate touches pointers.
enum NonceExtension {
    static let oid = "1.2.840.113635.100.8.2"

    /// The octets of the nonce, or nil when the value does not have exactly that shape.
    static func nonce(in value: [UInt8]) -> [UInt8]? {
        guard let (sequence, afterSequence) = element(value[...], tag: 0x30), afterSequence.isEmpty,
              let (tagged, afterTagged) = element(sequence, tag: 0xA1), afterTagged.isEmpty,
              let (octets, rest) = element(tagged, tag: 0x04), rest.isEmpty else { return nil }
        return Array(octets)
    }

    /// One DER element with `tag`: its contents and the bytes after it. Lengths in the long
    /// form take at most two bytes here (the extension is tiny) and must be minimal.
    private static func element(_ bytes: ArraySlice<UInt8>, tag: UInt8) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        var index = bytes.startIndex
        guard index < bytes.endIndex, bytes[index] == tag else { return nil }
        index += 1
        guard index < bytes.endIndex else { return nil }
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...2).contains(count), bytes.endIndex - index >= count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
            guard length >= 0x80, count == 1 || length >= 0x100 else { return nil }
        }
        guard bytes.endIndex - index >= length else { return nil }
        return (bytes[index..<(index + length)], bytes[(index + length)...])
    }
}
