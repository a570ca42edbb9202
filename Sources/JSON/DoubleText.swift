/// JSON text for a finite `Double`.
///
/// The standard library's `description` already gives the shortest digits that read back as
/// the same value (Swift's printing is exact round-trip), and its spellings ("0.1", "5.0",
/// "-0.0", "1e+21", "1e-07") are all valid JSON numbers. The only change is dropping the
/// exponent's leading zeros ("1e-07" -> "1e-7"), the way JavaScript writes them.
enum DoubleText {
    /// `value` must be finite.
    static func literal(_ value: Double) -> String {
        let text = value.description
        guard let e = text.utf8.firstIndex(of: UInt8(ascii: "e")) else { return text }
        var digitsStart = text.utf8.index(after: e)
        if digitsStart < text.utf8.endIndex,
           text.utf8[digitsStart] == UInt8(ascii: "-") || text.utf8[digitsStart] == UInt8(ascii: "+") {
            digitsStart = text.utf8.index(after: digitsStart)
        }
        var firstSignificant = digitsStart
        while firstSignificant < text.utf8.index(before: text.utf8.endIndex),
              text.utf8[firstSignificant] == UInt8(ascii: "0") {
            firstSignificant = text.utf8.index(after: firstSignificant)
        }
        guard firstSignificant != digitsStart else { return text }
        return String(text[..<digitsStart]) + String(text[firstSignificant...])
    }
}
