/// Time-based one-time passwords (RFC 6238) with HMAC-SHA-256, the app code of
/// `app-integrity.md#app-code`.
public enum TOTP {
    /// RFC 6238 with HMAC-SHA-256: counter = floor(unixTime / step) as 8 bytes big-endian,
    /// dynamic truncation (offset = last byte & 0x0f, 31-bit big-endian int), mod 10^digits,
    /// zero-padded.
    ///
    /// `digits` must be 1...10 and `step` positive: they are the server's constants, not input.
    /// A time before 1970 gives a negative counter, encoded in two's complement.
    public static func code(secret: [UInt8], unixTime: Int64, digits: Int = 8, step: Int64 = 30) -> String {
        precondition((1...10).contains(digits), "TOTP digits must be 1...10")
        precondition(step > 0, "TOTP step must be positive")
        return format(value(secret: secret, counter: counter(unixTime, step: step), digits: digits), digits: digits)
    }

    /// Accepts the code of the current step and of `window` steps before and after; compares
    /// in constant time; rejects anything not exactly `digits` ASCII digits.
    ///
    /// Every step in the window is computed and compared, so the time taken does not tell
    /// which step (if any) matched. Returns false for `digits` outside 1...10, a step that is
    /// not positive or a negative window.
    public static func verify(_ code: String, secret: [UInt8], unixTime: Int64, digits: Int = 8, step: Int64 = 30, window: Int64 = 1) -> Bool {
        guard (1...10).contains(digits), step > 0, window >= 0 else { return false }
        guard code.utf8.count == digits, code.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        let given = Array(code.utf8)
        let now = counter(unixTime, step: step)
        var matched = false
        var offset = -window
        while offset <= window {
            let (candidate, overflow) = now.addingReportingOverflow(offset)
            if !overflow {
                let expected = Array(format(value(secret: secret, counter: candidate, digits: digits), digits: digits).utf8)
                // Not `matched = matched || ...`: that would skip the comparison after a match.
                matched = constantTimeEquals(expected, given) || matched
            }
            offset += 1
        }
        return matched
    }

    /// floor(unixTime / step), rounding toward minus infinity for times before 1970.
    static func counter(_ unixTime: Int64, step: Int64) -> Int64 {
        let quotient = unixTime / step
        return unixTime % step < 0 ? quotient - 1 : quotient
    }

    static func value(secret: [UInt8], counter: Int64, digits: Int) -> UInt64 {
        let c = UInt64(bitPattern: counter)
        let message: [UInt8] = (0..<8).map { UInt8(truncatingIfNeeded: c >> (56 - 8 * UInt64($0))) }
        let mac = HMAC.sha256(key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = UInt64(mac[offset] & 0x7F) << 24 | UInt64(mac[offset + 1]) << 16
            | UInt64(mac[offset + 2]) << 8 | UInt64(mac[offset + 3])
        var modulus: UInt64 = 1
        for _ in 0..<digits { modulus *= 10 }
        return binary % modulus
    }

    static func format(_ value: UInt64, digits: Int) -> String {
        let text = String(value)
        return text.utf8.count >= digits ? text : String(repeating: "0", count: digits - text.utf8.count) + text
    }
}
