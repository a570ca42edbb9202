/// Base 32 (RFC 4648 section 6), the form TOTP secrets travel in.
public enum Base32 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

    /// `bytes` in the RFC 4648 alphabet, uppercase, `=`-padded to a multiple of eight characters.
    public static func encode(_ bytes: [UInt8]) -> String {
        let length = (bytes.count + 4) / 5 * 8
        return alphabet.withUTF8Buffer { alphabet in
            String(unsafeUninitializedCapacity: length) { out in
                var o = 0
                var accumulator: UInt32 = 0
                var bits = 0
                for byte in bytes {
                    accumulator = accumulator << 8 | UInt32(byte)
                    bits += 8
                    while bits >= 5 {
                        bits -= 5
                        out[o] = alphabet[Int(accumulator >> UInt32(bits) & 0x1F)]
                        o += 1
                    }
                    accumulator &= (1 << UInt32(bits)) - 1
                }
                if bits > 0 {
                    out[o] = alphabet[Int(accumulator << UInt32(5 - bits) & 0x1F)]
                    o += 1
                }
                while o < length {
                    out[o] = UInt8(ascii: "=")
                    o += 1
                }
                return length
            }
        }
    }

    /// Case-insensitive, padding optional; spaces ignored (secrets are often grouped); nil if invalid.
    ///
    /// Padding, when present, must complete the last group of eight; nothing but padding and
    /// spaces may follow the first `=`. A length no encoder produces and non-zero unused bits
    /// in the last character are refused: both mean a character was lost or mistyped.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var valid = true
        var characters = 0
        var padding = 0
        let result = [UInt8](unsafeUninitializedCapacity: text.count / 8 * 5 + 5) { out, initialized in
            initialized = 0
            var accumulator: UInt32 = 0
            var bits = 0
            var o = 0
            for c in text {
                let value: UInt8
                switch c {
                case UInt8(ascii: " "): continue
                case UInt8(ascii: "="): padding += 1; continue
                case 0x41...0x5A: value = c &- 0x41
                case 0x61...0x7A: value = c &- 0x61
                case 0x32...0x37: value = c &- 0x32 &+ 26
                default: valid = false; return
                }
                guard padding == 0 else { valid = false; return }
                characters += 1
                accumulator = accumulator << 5 | UInt32(value)
                bits += 5
                if bits >= 8 {
                    bits -= 8
                    out[o] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    o += 1
                }
                accumulator &= (1 << UInt32(bits)) - 1
            }
            if accumulator != 0 { valid = false }
            initialized = o
        }
        guard valid else { return nil }
        // Characters in the last group: 2, 4, 5 or 7 carry 1 to 4 bytes; 1, 3 and 6 cannot occur.
        switch characters % 8 {
        case 1, 3, 6: return nil
        default: break
        }
        guard padding == 0 || (padding < 8 && (characters + padding) % 8 == 0) else { return nil }
        return result
    }
}
