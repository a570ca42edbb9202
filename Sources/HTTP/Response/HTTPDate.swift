import Clock

/// The IMF-fixdate of one second ("Sun, 06 Nov 1994 08:49:37 GMT", RFC 9110 5.6.7),
/// formatted once and reused: the connection holds one and calls `update(unixSeconds:)`
/// before writing, which reformats only when the second has changed.
public struct HTTPDate: Sendable {
    /// The second this date shows (after clamping to years 0000...9999).
    public private(set) var unixSeconds: Int64
    /// The 29 bytes of the formatted date.
    public private(set) var bytes: [UInt8]

    // 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years a 4-digit field can show.
    private static let earliest: Int64 = -62_167_219_200
    private static let latest: Int64 = 253_402_300_799

    /// Formats `unixSeconds` (seconds since 1970-01-01T00:00:00Z; clamped to years 0...9999).
    public init(unixSeconds: Int64) {
        let clamped = min(max(unixSeconds, Self.earliest), Self.latest)
        self.unixSeconds = clamped
        self.bytes = Self.format(clamped)
    }

    /// Moves the date to `unixSeconds`, formatting only if the second changed.
    public mutating func update(unixSeconds: Int64) {
        let clamped = min(max(unixSeconds, Self.earliest), Self.latest)
        guard clamped != self.unixSeconds else { return }
        self.unixSeconds = clamped
        self.bytes = Self.format(clamped)
    }

    /// The formatted date as a String.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private static let dayNames: StaticString = "SunMonTueWedThuFriSat"
    private static let monthNames: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"

    private static func format(_ seconds: Int64) -> [UInt8] {
        let (days, secondOfDay) = CivilDate.floorDivide(seconds, 86_400)
        let (year, month, day) = CivilDate.from(days: days)
        // 1970-01-01 was a Thursday (index 4, Sunday being 0).
        let weekday = Int(CivilDate.floorDivide(days + 4, 7).remainder)

        var out = [UInt8](repeating: 0x20, count: 29)
        copy(dayNames, from: weekday * 3, count: 3, into: &out, at: 0)
        out[3] = 0x2C
        twoDigits(day, into: &out, at: 5)
        copy(monthNames, from: (month - 1) * 3, count: 3, into: &out, at: 8)
        twoDigits(year / 100, into: &out, at: 12)
        twoDigits(year % 100, into: &out, at: 14)
        let s = Int(secondOfDay)
        twoDigits(s / 3600, into: &out, at: 17)
        out[19] = 0x3A
        twoDigits(s / 60 % 60, into: &out, at: 20)
        out[22] = 0x3A
        twoDigits(s % 60, into: &out, at: 23)
        out[26] = 0x47
        out[27] = 0x4D
        out[28] = 0x54
        return out
    }

    private static func twoDigits(_ value: Int, into out: inout [UInt8], at index: Int) {
        out[index] = UInt8(truncatingIfNeeded: 0x30 + value / 10)
        out[index + 1] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
    }

    private static func copy(_ names: StaticString, from offset: Int, count: Int, into out: inout [UInt8], at index: Int) {
        let p = names.utf8Start
        for i in 0..<count { out[index + i] = p[offset + i] }
    }
}
