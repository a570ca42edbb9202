import EventLoop
import HTTPClient

/// A subscription's endpoint, the URL the browser's push service gave it, read as this server
/// will send to it: `https://host[:port]/path[?query]`, visible ASCII, at most 2,048 bytes, no
/// user information and no fragment. The host is a DNS name or an IP literal (`[v6]`).
public struct PushEndpoint: Sendable, Equatable {
    public static let maxBytes = 2048

    /// The URL as the browser gave it, the one stored and sent to.
    public let url: String
    public let host: String
    public let port: UInt16
    /// The request target: the path and the query.
    public let target: String
    /// The same URL as the HTTP client sends to it.
    public let requestURL: HTTPURL

    /// Why an endpoint was refused, in words for the `422`'s message.
    public struct Refusal: Error, Equatable, Sendable {
        public let reason: String
    }

    public init(_ url: String) throws(Refusal) {
        let bytes = Array(url.utf8)
        guard bytes.count <= Self.maxBytes else { throw Refusal(reason: "is longer than 2,048 bytes") }
        guard url.hasPrefix("https://") else { throw Refusal(reason: "must be an https: URL") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Refusal(reason: "must be a URL of visible ASCII characters")
        }
        guard !url.contains("#") else { throw Refusal(reason: "must not have a fragment") }
        let rest = url.dropFirst("https://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw Refusal(reason: "must not carry a user name or password") }
        var hostPart = authority
        var port: UInt16 = 443
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Refusal(reason: "has an unclosed [ in its host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Self.port(after.dropFirst()) else { throw Refusal(reason: "has a port that is not 1 to 65535") }
                port = number
            }
            guard let address = IPAddress(String(hostPart)), address.family == .v6 else {
                throw Refusal(reason: "has a bracketed host that is not an IPv6 address")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            guard let number = Self.port(authority[authority.index(after: colon)...]) else { throw Refusal(reason: "has a port that is not 1 to 65535") }
            port = number
        }
        let host = String(hostPart).lowercased()
        guard !host.isEmpty else { throw Refusal(reason: "has no host") }
        guard authority.hasPrefix("[") || IPAddress(host) != nil || Self.isDNSName(host) else {
            throw Refusal(reason: "has a host that is neither a DNS name nor an IP address")
        }
        var target = String(rest[authorityEnd...])
        if target.isEmpty { target = "/" }
        if target.hasPrefix("?") { target = "/" + target }
        // The client's reader is looser than the rules above, so it takes every endpoint they
        // let through; a refusal here would be a defect of one of the two.
        do {
            requestURL = try HTTPURL(url)
        } catch {
            throw Refusal(reason: "is not a URL this server can send to (\(error.reason))")
        }
        self.url = url
        self.host = host
        self.port = port
        self.target = target
    }

    /// `https://host[:port]`, the `aud` of the VAPID token.
    public var origin: String { "https://" + authority }

    /// The `Host` header: the host (bracketed if IPv6), and the port unless it is 443.
    public var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }

    private static func port(_ text: Substring) -> UInt16? {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(text), value >= 1, value <= 65535 else { return nil }
        return UInt16(value)
    }

    /// Labels of letters, digits, hyphens (not at either end) and underscores, 1 to 63 bytes each, 253 in all.
    private static func isDNSName(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }
        }
    }
}

/// Which addresses a push may go to: never to this machine or its networks unless the
/// administrator allows it (`WEB_PUSH_ALLOW_PRIVATE_HOSTS`), so that a subscription cannot make
/// the server a client of its own LAN. Checked when a subscription is stored and again before
/// each connection (DNS can change in between). The ranges and names are the HTTP client's
/// (`PublicAddresses`), which OAuth's fetches share.
public enum PushAddressRule {
    /// True when `host` (a name or literal of `PushEndpoint`) is known to be private without a
    /// lookup (`PublicAddresses.isPrivateName`).
    public static func isPrivateName(_ host: String) -> Bool {
        PublicAddresses.isPrivateName(host)
    }

    /// True when `address` is on the public internet.
    public static func isPublic(_ address: IPAddress) -> Bool {
        PublicAddresses.isPublic(address)
    }
}
