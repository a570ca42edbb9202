/// Base 16 (RFC 4648 section 8).
public enum Hex {
    private static let digits: StaticString = "0123456789abcdef"

    /// Lowercase hex of `bytes`, two characters per byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let result = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { encode($0) }
    }

    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let (length, overflow) = bytes.count.multipliedReportingOverflow(by: 2)
        precondition(!overflow, "Hex.encode: input too large")
        return digits.withUTF8Buffer { digits in
            String(unsafeUninitializedCapacity: length) { out in
                var i = 0
                for byte in bytes {
                    out[i] = digits[Int(byte >> 4)]
                    out[i + 1] = digits[Int(byte & 0x0F)]
                    i += 2
                }
                return length
            }
        }
    }

    /// The bytes of `text`, hex digits in either case; nil if the length is odd or any
    /// character is not a hex digit (no `0x` prefix, no separators, no whitespace).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var valid = true
        let result = [UInt8](unsafeUninitializedCapacity: text.count / 2) { out, initialized in
            var i = 0
            while i < text.count {
                guard let high = value(text[i]), let low = value(text[i + 1]) else {
                    valid = false
                    break
                }
                out[i / 2] = high << 4 | low
                i += 2
            }
            initialized = i / 2
        }
        return valid ? result : nil
    }

    /// The value of one hexadecimal digit (either case), nil for any other byte.
    @inline(__always)
    public static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c &- 0x30
        case 0x61...0x66: c &- 0x61 &+ 10
        case 0x41...0x46: c &- 0x41 &+ 10
        default: nil
        }
    }
}
