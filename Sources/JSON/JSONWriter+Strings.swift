// String escaping on output: `"`, `\` and bytes below 0x20 are escaped (short forms where JSON
// has them, `\u00XX` otherwise); everything else, non-ASCII UTF-8 included, goes through raw.
// Runs of bytes that need nothing are copied with one append each.

extension JSONWriter {
    /// `"text"` with the needed escapes; `text` is valid UTF-8 (it comes from a Swift string).
    mutating func appendQuoted(_ text: UnsafeBufferPointer<UInt8>) {
        bytes.reserveCapacity(bytes.count + text.count + 2)
        bytes.append(UInt8(ascii: "\""))
        appendEscaped(text)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A piece of a string's content, escaped, without quotes: a long string written in
    /// several pieces (JSON text carried as a string, written as the client reads). Escaping
    /// goes byte by byte, so the pieces escape to what the whole string would.
    public mutating func stringContent(_ text: [UInt8]) {
        text.withUnsafeBufferPointer { appendEscaped($0) }
    }

    private mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for i in 0..<text.count {
            let byte = text[i]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            if runStart < i {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<i]))
            }
            appendEscape(byte)
            runStart = i + 1
        }
        if runStart < text.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
        }
    }

    private mutating func appendEscape(_ byte: UInt8) {
        let short: UInt8
        switch byte {
        case 0x22: short = UInt8(ascii: "\"")
        case 0x5C: short = UInt8(ascii: "\\")
        case 0x08: short = UInt8(ascii: "b")
        case 0x0C: short = UInt8(ascii: "f")
        case 0x0A: short = UInt8(ascii: "n")
        case 0x0D: short = UInt8(ascii: "r")
        case 0x09: short = UInt8(ascii: "t")
        default:
            appendASCII("\\u00")
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0x0F))
            return
        }
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(short)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
