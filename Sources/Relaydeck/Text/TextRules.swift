/// The text rules of the contract (`overview.md#limits`): one-line fields, lengths, host names.
public enum TextRules {
    /// Makes `text` one line: trims white space at both ends and turns each run of white
    /// space (newlines and tabs included) into one space.
    public static func oneLine(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    /// True when `text` holds a control character: C0 other than the white space of tab and
    /// line ends (`oneLine` turns those into spaces, multi-line fields keep them), DEL, and
    /// all of C1. U+0085 (NEXT LINE) is refused too although Unicode counts it as white
    /// space: it is a C1 control that no keyboard types and JSON clients never need (a line
    /// break is `\n`), and a client that shows text may break the line there or not. Turning
    /// it into `\n` would store what was not sent.
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            let value = scalar.value
            if value == 0x85 { return true }
            return !scalar.properties.isWhitespace && (value < 0x20 || (0x7F...0x9F).contains(value))
        }
    }

    /// `text` without the white space at both ends (a typed answer keeps its inner lines).
    public static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }

    /// True when nothing of `text` shows: only white space and characters that render as
    /// nothing (U+200B zero width space, U+202E right-to-left override, U+3164 Hangul filler,
    /// variation selectors: Unicode's default-ignorable code points). Such a label or title
    /// would look empty, or borrow the look of its neighbours.
    public static func isInvisible(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint }
    }

    /// `20000` as `20,000`, as the contract writes its limits (for messages).
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = value < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// Length as a person counts characters: grapheme clusters ("é" and "👍🏽" are one each).
    public static func length(_ text: String) -> Int { text.count }

    /// A valid `X-Relaydeck-Host` value (`overview.md#host-name`): trimmed of spaces and tabs
    /// at both ends, then 1 to 64 printable ASCII characters. Nil for anything else.
    public static func hostName(_ raw: String) -> String? {
        var bytes = Substring(raw).utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        guard (1...64).contains(bytes.count), bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
