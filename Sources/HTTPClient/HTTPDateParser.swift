import Clock

/// An HTTP-date (RFC 9110 5.6.7) as seconds since 1970: the IMF-fixdate every sender should
/// use (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms a recipient must still
/// read, RFC 850's (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime's
/// (`Sun Nov  6 08:49:37 1994`). The day's name is not checked against the date.
public enum HTTPDateParser {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func unixSeconds(_ text: Substring) -> Int64? {
        let parts = text.split(separator: " ")
        if parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT" {
            return seconds(day: parts[1], month: parts[2], year: parts[3], time: parts[4])
        }
        if parts.count == 4, parts[0].hasSuffix(","), parts[3] == "GMT" {
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[2].utf8.count == 2, isDigits(date[2]), let twoDigits = Int(date[2]) else { return nil }
            // Two digits: 70 to 99 are 1970 to 1999, the rest 2000 to 2069 (RFC 9110 reads them
            // against the present; nothing sends this form any more).
            let year = twoDigits >= 70 ? 1900 + twoDigits : 2000 + twoDigits
            return seconds(day: date[0], month: date[1], year: Substring(String(year)), time: parts[2])
        }
        if parts.count == 5, !parts[0].hasSuffix(",") {
            return seconds(day: parts[2], month: parts[1], year: parts[4], time: parts[3])
        }
        return nil
    }

    public static func unixSeconds(_ text: String) -> Int64? { unixSeconds(Substring(text)) }

    private static func seconds(day: Substring, month: Substring, year: Substring, time: Substring) -> Int64? {
        guard [day, year, time.replacing(":", with: "")].allSatisfy(isDigits) else { return nil }
        guard day.utf8.count <= 2, year.utf8.count == 4, let day = Int(day), let year = Int(year),
              let monthIndex = months.firstIndex(of: String(month)), (1...31).contains(day), (1970...9999).contains(year) else {
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.utf8.count == 2 }), let hour = Int(clock[0]), let minute = Int(clock[1]),
              let second = Int(clock[2]), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else {
            return nil
        }
        let days = CivilDate.days(year: year, month: monthIndex + 1, day: day)
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    private static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
