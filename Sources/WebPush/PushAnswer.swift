/// What a push service answered (RFC 8030 section 5 and 8292 section 4): the status line and
/// the headers this server acts on, read from the first bytes of the answer. The body is not
/// read: push services put a short reason there, and the status says what to do.
public struct PushAnswer: Sendable, Equatable {
    /// The most a head may take; a service that sends more is broken, and the connection ends.
    public static let maxHeadBytes = 16 * 1024

    public let status: Int
    /// `Retry-After` in seconds from now, from its seconds or its HTTP-date form; nil when
    /// absent or unreadable.
    public let retryAfterSeconds: Int64?

    public init(status: Int, retryAfterSeconds: Int64?) {
        self.status = status
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// What to do with the subscription and the message.
    public enum Verdict: Sendable, Equatable {
        /// `201` (and any 2xx): the service took it.
        case delivered
        /// `404`, `410`: the subscription is gone; remove it.
        case gone
        /// `413`: the message was too large; a defect of this server (payloads stay under
        /// 3,000 bytes), not tried again.
        case tooLarge
        /// `429`, `5xx`: try again later, after `Retry-After` when it says.
        case retry
        /// Anything else (`400`, `401`, `403`: a key or token the service refuses): not tried
        /// again, logged with the status.
        case refused
    }

    public var verdict: Verdict {
        switch status {
        case 200..<300: .delivered
        case 404, 410: .gone
        case 413: .tooLarge
        case 429, 500..<600: .retry
        default: .refused
        }
    }

    /// The head at the start of `bytes` once its blank line has arrived; nil while it has not
    /// (and `bytes` is under `maxHeadBytes`). Throws when it is not an HTTP/1.x answer or is
    /// too long.
    public static func parse(_ bytes: [UInt8], nowUnixSeconds: Int64) throws(Malformed) -> PushAnswer? {
        guard let end = headEnd(bytes) else {
            if bytes.count >= maxHeadBytes { throw Malformed(reason: "an answer head longer than 16 KiB") }
            return nil
        }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let statusLine = lines.first else { throw Malformed(reason: "no status line") }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].utf8.count == 3,
              let status = Int(parts[1]), status >= 100 else {
            throw Malformed(reason: "a status line that is not HTTP/1.x")
        }
        var retryAfter: Int64?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            if name == "retry-after" { retryAfter = Self.retryAfter(value, now: nowUnixSeconds) }
        }
        return PushAnswer(status: status, retryAfterSeconds: retryAfter)
    }

    public struct Malformed: Error, Equatable, Sendable {
        public let reason: String
    }

    /// Where the head's `\r\n\r\n` ends, if it has come.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// `Retry-After` (RFC 9110 section 10.2.3): delay-seconds, or an IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) made relative to `now`, never below 0.
    static func retryAfter(_ value: Substring, now: Int64) -> Int64? {
        if !value.isEmpty, value.utf8.count <= 10, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return Int64(value)
        }
        guard let date = imfFixdate(value) else { return nil }
        return max(0, date - now)
    }

    static func imfFixdate(_ value: Substring) -> Int64? {
        let parts = value.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]), (1...31).contains(day), (1970...9999).contains(year) else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm), March-based years.
        let month = monthIndex + 1
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
