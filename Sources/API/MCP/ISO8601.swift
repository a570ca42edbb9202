import Clock

/// Unix milliseconds as ISO 8601 text in UTC, `2025-10-10T16:15:00.412Z`: the
/// `created_at_iso` of a task in a tool result (`mcp.md#tools`: a model reads that better than
/// a number); the date is `CivilDate`'s.
enum ISO8601 {
    static func text(millis: Int64) -> String {
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
