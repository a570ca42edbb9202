import HTTPClient

/// What a push service answered (RFC 8030 section 5 and 8292 section 4): the status and the
/// header this server acts on, from the answer's head (`PushDelivery` reads no more: push
/// services put a short reason in the body, and the status says what to do).
public struct PushAnswer: Sendable, Equatable {
    public let status: Int
    /// `Retry-After` in seconds from now, from its seconds or its HTTP-date form; nil when
    /// absent or unreadable.
    public let retryAfterSeconds: Int64?

    public init(status: Int, retryAfterSeconds: Int64?) {
        self.status = status
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// From the answer's status and head, read at `nowUnixSeconds` (for a dated `Retry-After`).
    public init(status: Int, headers: HTTPHeaders, nowUnixSeconds: Int64) {
        self.init(status: status, retryAfterSeconds: headers["Retry-After"].flatMap { Self.retryAfter($0, now: nowUnixSeconds) })
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

    /// `Retry-After` (RFC 9110 section 10.2.3): delay-seconds, or an HTTP-date made relative
    /// to `now`, never below 0.
    static func retryAfter(_ value: String, now: Int64) -> Int64? {
        if !value.isEmpty, value.utf8.count <= 10, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return Int64(value)
        }
        guard let date = HTTPDateParser.unixSeconds(value) else { return nil }
        return max(0, date - now)
    }
}
