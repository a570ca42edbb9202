/// Base 64 (RFC 4648 sections 4 and 5).
public enum Base64 {
    private static let standardAlphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    private static let urlAlphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// `bytes` in the standard alphabet (`+/`) or, with `urlSafe`, the URL alphabet (`-_`);
    /// `=` padding to a multiple of four characters unless `padded` is false.
    public static func encode(_ bytes: [UInt8], urlSafe: Bool = false, padded: Bool = true) -> String {
        let alphabet = urlSafe ? urlAlphabet : standardAlphabet
        let whole = bytes.count / 3
        let rest = bytes.count % 3
        let length = whole * 4 + (rest == 0 ? 0 : padded ? 4 : rest + 1)
        return alphabet.withUTF8Buffer { alphabet in
            bytes.withUnsafeBufferPointer { input in
                String(unsafeUninitializedCapacity: length) { out in
                    var i = 0
                    var o = 0
                    while i + 3 <= input.count {
                        let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        out[o] = alphabet[Int(n >> 18)]
                        out[o + 1] = alphabet[Int(n >> 12 & 0x3F)]
                        out[o + 2] = alphabet[Int(n >> 6 & 0x3F)]
                        out[o + 3] = alphabet[Int(n & 0x3F)]
                        i += 3
                        o += 4
                    }
                    if rest > 0 {
                        let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                        out[o] = alphabet[Int(n >> 18)]
                        out[o + 1] = alphabet[Int(n >> 12 & 0x3F)]
                        o += 2
                        if rest == 2 {
                            out[o] = alphabet[Int(n >> 6 & 0x3F)]
                            o += 1
                        }
                        if padded {
                            while o < length {
                                out[o] = UInt8(ascii: "=")
                                o += 1
                            }
                        }
                    }
                    return length
                }
            }
        }
    }

    /// Strict: standard or URL alphabet (not mixed), padding optional but correct if present, no whitespace; nil otherwise.
    ///
    /// Also refused: a length that no encoding produces (4n + 1 characters) and unused low
    /// bits that are not zero in the last character, so each byte string has exactly one
    /// accepted spelling per alphabet and padding choice.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var length = text.count
        var padding = 0
        while length > 0 && text[length - 1] == UInt8(ascii: "=") {
            length -= 1
            padding += 1
        }
        guard padding <= 2, padding == 0 || text.count % 4 == 0, length % 4 != 1 else { return nil }
        // With padding, it must fill exactly the last quantum: 2 data characters + "==" or 3 + "=".
        guard padding == 0 || (length % 4) + padding == 4 else { return nil }

        let rest = length % 4
        let outputLength = length / 4 * 3 + (rest == 0 ? 0 : rest - 1)
        var valid = true
        var sawStandard = false
        var sawURL = false
        let result = [UInt8](unsafeUninitializedCapacity: outputLength) { out, initialized in
            initialized = 0
            var accumulator: UInt32 = 0
            var bits = 0
            var o = 0
            for i in 0..<length {
                let c = text[i]
                let value: UInt8
                switch c {
                case 0x41...0x5A: value = c &- 0x41
                case 0x61...0x7A: value = c &- 0x61 &+ 26
                case 0x30...0x39: value = c &- 0x30 &+ 52
                case UInt8(ascii: "+"): value = 62; sawStandard = true
                case UInt8(ascii: "/"): value = 63; sawStandard = true
                case UInt8(ascii: "-"): value = 62; sawURL = true
                case UInt8(ascii: "_"): value = 63; sawURL = true
                default: valid = false; return
                }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out[o] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    o += 1
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
            // Leftover bits are the unused tail of the last character; they must be zero.
            if accumulator != 0 { valid = false }
            initialized = o
        }
        guard valid, !(sawStandard && sawURL) else { return nil }
        return result
    }
}
