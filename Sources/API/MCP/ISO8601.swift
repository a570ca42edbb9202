import Clock
import JSON

/// Unix milliseconds as ISO 8601 text in UTC, `2025-10-10T16:15:00.412Z`: the
/// `created_at_iso` of a task in a tool result (`mcp.md#tools`: a model reads that better than
/// a number); the date is `CivilDate`'s.
enum ISO8601 {
    static func text(millis: Int64) -> String {
        withDigits(millis) { String(decoding: $0, as: UTF8.self) } ?? paddedText(millis)
    }

    /// The text as a JSON string, written into `writer` from the digits: no `String` is made
    /// (a task in a tool result has three of these; making each from padded pieces was
    /// 8,300 instructions, 3% of an `update_task` call, `bench/cost.py --callgrind mcp`).
    static func write(millis: Int64, to writer: inout JSONWriter) {
        let written: Void? = withDigits(millis) { digits in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digits.count + 2) { quoted in
                quoted[0] = UInt8(ascii: "\"")
                _ = UnsafeMutableBufferPointer(rebasing: quoted[1...]).initialize(from: digits)
                quoted[digits.count + 1] = UInt8(ascii: "\"")
                writer.rawValue(UnsafeBufferPointer(quoted))
            }
        }
        if written == nil { writer.string(paddedText(millis)) }
    }

    /// `body` with the 24 bytes of the text, for the years 0 to 9999; nil for the others
    /// (whose year is not four digits).
    private static func withDigits<T>(_ millis: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        let (days, dayMillis) = CivilDate.floorDivide(millis, 86_400_000)
        let (year, month, day) = CivilDate.from(days: days)
        guard (0...9999).contains(year) else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            var at = 0
            func put(_ value: Int64, _ width: Int, then separator: UInt8) {
                var rest = value
                for position in stride(from: at + width - 1, through: at, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
                at += width
                text[at] = separator
                at += 1
            }
            put(Int64(year), 4, then: UInt8(ascii: "-"))
            put(Int64(month), 2, then: UInt8(ascii: "-"))
            put(Int64(day), 2, then: UInt8(ascii: "T"))
            put(dayMillis / 3_600_000, 2, then: UInt8(ascii: ":"))
            put(dayMillis / 60_000 % 60, 2, then: UInt8(ascii: ":"))
            put(dayMillis / 1000 % 60, 2, then: UInt8(ascii: "."))
            put(dayMillis % 1000, 3, then: UInt8(ascii: "Z"))
            return body(UnsafeBufferPointer(text))
        }
    }

    /// The same text for any year, from padded pieces.
    private static func paddedText(_ millis: Int64) -> String {
        let (days, dayMillis) = CivilDate.floorDivide(millis, 86_400_000)
        let (year, month, day) = CivilDate.from(days: days)
        let hours = dayMillis / 3_600_000
        let minutes = dayMillis / 60_000 % 60
        let seconds = dayMillis / 1000 % 60
        let fraction = dayMillis % 1000
        return "\(pad(Int64(year), 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(fraction, 3))Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
