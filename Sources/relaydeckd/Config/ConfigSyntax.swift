/// The small grammars of setting values: numbers, durations, Apple identifiers, lists.
/// Pure functions, so each form is tested on its own.
enum ConfigSyntax {
    /// ASCII digits only (no sign, no spaces), at most 9 of them so the value cannot overflow;
    /// leading zeros are allowed.
    static func decimal(_ text: String) -> Int? {
        let utf8 = text.utf8
        guard (1...9).contains(utf8.count), utf8.allSatisfy(isDigit) else { return nil }
        return utf8.reduce(0) { $0 * 10 + Int($1 &- 0x30) }
    }

    /// `seconds[.fraction]` with 1 to 3 fraction digits, in milliseconds: "10" -> 10000,
    /// "0.5" -> 500, "0.125" -> 125. No sign, exponent, or bare "." at either end.
    static func milliseconds(_ text: String) -> Int? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, (1...9).contains(whole.count), whole.allSatisfy(isDigit) else { return nil }
        var millis = whole.reduce(0) { $0 * 10 + Int($1 &- 0x30) } * 1000
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...3).contains(fraction.count), fraction.allSatisfy(isDigit) else { return nil }
            var scale = 100
            for digit in fraction {
                millis += Int(digit &- 0x30) * scale
                scale /= 10
            }
        }
        return millis
    }

    /// Milliseconds as the seconds an operator writes: 50 -> "0.05", 3600000 -> "3600".
    static func seconds(_ millis: Int) -> String {
        let whole = String(millis / 1000)
        var fraction = String(millis % 1000)
        guard fraction != "0" else { return whole }
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return whole + "." + fraction
    }

    /// The binary units a size may name, largest first.
    static let byteUnits: [(name: String, size: Int)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]

    /// A size in bytes: a whole number (at most 9 digits) alone, or followed by `KiB`, `MiB`
    /// or `GiB` (any case, one space allowed between): "1048576", "256MiB", "64 kib".
    static func bytes(_ text: String) -> Int? {
        let digits = text.prefix(while: { $0.isASCII && $0.isNumber })
        guard let number = decimal(String(digits)) else { return nil }
        var unit = text[digits.endIndex...]
        if unit.first == " " { unit = unit.dropFirst() }
        if unit.isEmpty { return digits.endIndex == text.endIndex ? number : nil }
        guard let size = byteUnits.first(where: { $0.name.lowercased() == unit.lowercased() })?.size else { return nil }
        return number * size
    }

    /// Bytes as an operator writes them: 268435456 -> "256MiB", 1000 -> "1000".
    static func byteText(_ bytes: Int) -> String {
        for unit in byteUnits where bytes >= unit.size && bytes % unit.size == 0 {
            return "\(bytes / unit.size)\(unit.name)"
        }
        return String(bytes)
    }

    /// An Apple team or key ID: exactly 10 of [A-Z0-9].
    static func isAppleID(_ text: Substring.UTF8View) -> Bool {
        text.count == 10 && text.allSatisfy { isDigit($0) || (0x41...0x5A).contains($0) }
    }

    /// A bundle ID: [A-Za-z0-9.-], dot-separated parts none of which is empty.
    static func isBundleID(_ text: Substring.UTF8View) -> Bool {
        guard !text.isEmpty, text.first != UInt8(ascii: "."), text.last != UInt8(ascii: ".") else { return false }
        var previous: UInt8 = 0
        for c in text {
            let allowed = isDigit(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            guard allowed, !(c == UInt8(ascii: ".") && previous == UInt8(ascii: ".")) else { return false }
            previous = c
        }
        return true
    }

    /// An App Attest app ID: `TEAMID.bundle.id`.
    static func isAppID(_ text: Substring) -> Bool {
        let utf8 = text.utf8
        guard utf8.count > 11 else { return false }
        let dot = utf8.index(utf8.startIndex, offsetBy: 10)
        return utf8[dot] == UInt8(ascii: ".")
            && isAppleID(utf8[..<dot])
            && isBundleID(utf8[utf8.index(after: dot)...])
    }

    /// Items of a list separated by `separators`, each without surrounding spaces or tabs,
    /// empty items dropped (so a trailing comma is harmless).
    static func list(_ text: String, separators: Set<Character>) -> [Substring] {
        text.split(whereSeparator: { separators.contains($0) })
            .map(trimmed)
            .filter { !$0.isEmpty }
    }

    /// Whether `marker` occurs in `bytes`. Naive search: files are at most 1 MiB and read once.
    static func contains(_ bytes: [UInt8], _ marker: String) -> Bool {
        let needle = Array(marker.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return needle.isEmpty }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// `text` without leading and trailing ASCII whitespace (space, tab, CR, LF).
    static func trimmed(_ text: Substring) -> Substring {
        var result = text
        while let first = result.first, isSpace(first) { result.removeFirst() }
        while let last = result.last, isSpace(last) { result.removeLast() }
        return result
    }

    private static func isSpace(_ c: Character) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\r\n"
    }

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}
