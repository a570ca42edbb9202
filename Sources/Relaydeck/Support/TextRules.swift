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

    /// True when `text` holds a control character (white space excluded, since `oneLine`
    /// turns that into spaces): C0, DEL and C1.
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            !scalar.properties.isWhitespace && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }
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
