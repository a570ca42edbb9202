import Clock

/// How long a caller may keep an answer and use it again without asking (RFC 9111 section 4.2),
/// from the answer's own fields: `Cache-Control` (`no-store` and `no-cache`: not at all, since
/// this client does not revalidate; `max-age`), else `Expires` against `Date`; less the `Age` a
/// cache before us gave it. An answer that says nothing is not kept (no heuristic freshness),
/// and none is kept longer than the caller's maximum. `private` and `public` concern shared
/// caches and change nothing here, nor does `s-maxage`.
public struct CacheLifetime: Sendable, Equatable {
    /// How long the answer may be used again from when it arrived; zero: not kept.
    public let span: TimeSpan

    public var isCacheable: Bool { span > .zero }

    public init(span: TimeSpan) {
        self.span = max(.zero, span)
    }

    /// From `headers`, at `nowUnixSeconds` (the wall clock when the answer arrived; a missing
    /// `Date` stands for it), at most `maximum`.
    public init(_ headers: HTTPHeaders, nowUnixSeconds: Int64, maximum: TimeSpan) {
        let seconds = Self.freshSeconds(headers, now: nowUnixSeconds).map { $0 - Self.age(headers) } ?? 0
        // Capped in seconds first: an `Expires` centuries away would overflow nanoseconds.
        let capped = min(max(seconds, 0), maximum.nanoseconds / 1_000_000_000 + 1)
        self.init(span: min(TimeSpan(nanoseconds: capped * 1_000_000_000), maximum))
    }

    /// The answer's freshness lifetime in seconds, before its age; nil when it gives none.
    static func freshSeconds(_ headers: HTTPHeaders, now: Int64) -> Int64? {
        var maxAge: Int64?
        var sawMaxAge = false
        for directive in headers.list("Cache-Control") {
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingWhitespace
            if HTTPHeaders.same(String(name), "no-store") || HTTPHeaders.same(String(name), "no-cache") { return 0 }
            // The first `max-age` counts (RFC 9111 4.2.1); one that is not a number makes the
            // answer stale (RFC 9111 4.2.1, "invalid").
            if HTTPHeaders.same(String(name), "max-age") && !sawMaxAge {
                sawMaxAge = true
                maxAge = parts.count == 2 ? deltaSeconds(parts[1].trimmingWhitespace) : nil
                if maxAge == nil { maxAge = 0 }
            }
        }
        if let maxAge { return maxAge }
        let expiresValues = headers.values("Expires")
        guard let expiresText = expiresValues.first else { return nil }
        // An `Expires` that is not a date (`0`, `-1`) means already expired (RFC 9111 5.3).
        guard let expires = HTTPDateParser.unixSeconds(expiresText) else { return 0 }
        let date = headers["Date"].flatMap(HTTPDateParser.unixSeconds) ?? now
        return expires - date
    }

    /// `Age` in seconds (RFC 9111 5.1); 0 when absent or not a number.
    static func age(_ headers: HTTPHeaders) -> Int64 {
        headers["Age"].flatMap { deltaSeconds(Substring($0)) } ?? 0
    }

    /// delta-seconds (RFC 9111 1.2.2), also in quotes (`max-age="60"`, which some send); a
    /// value past 2^31 stands for 2^31, as the RFC asks.
    static func deltaSeconds(_ text: Substring) -> Int64? {
        var digits = text
        if digits.count >= 2, digits.hasPrefix("\""), digits.hasSuffix("\"") { digits = digits.dropFirst().dropLast() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        guard digits.utf8.count <= 10, let value = Int64(digits) else { return 2_147_483_648 }
        return min(value, 2_147_483_648)
    }
}
