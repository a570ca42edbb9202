import EventLoop

/// An `http:` or `https:` URL as this client will send to it: the scheme, the host (a DNS
/// name, lowercased, or an IP literal, IPv6 without its brackets), the port, and the request
/// target (the path and the query). Visible ASCII only, at most `maxBytes`, no user
/// information; a fragment is dropped, since it never leaves the client (RFC 9110 4.2.4).
/// The host's labels are not judged here: the name lookup refuses what cannot be a name.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    public static let maxBytes = 4096

    public enum Scheme: String, Sendable, Hashable {
        case http, https

        var defaultPort: UInt16 { self == .https ? 443 : 80 }
    }

    public let scheme: Scheme
    public let host: String
    public let port: UInt16
    /// The request target: the path (at least `/`) and the query.
    public let target: String

    /// Why a text is not such a URL, in words for a log line or an error message.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    public init(_ text: String) throws(Refusal) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maxBytes else { throw Refusal(reason: "a URL longer than \(Self.maxBytes) bytes") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Refusal(reason: "a URL with a byte that is not visible ASCII")
        }
        guard let colon = text.firstIndex(of: ":"),
              let scheme = Scheme(rawValue: text[..<colon].lowercased()) else {
            throw Refusal(reason: "a URL that is not http: or https:")
        }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw Refusal(reason: "a URL without an authority (//host)") }
        var afterSlashes = rest.dropFirst(2)
        if let hash = afterSlashes.firstIndex(of: "#") { afterSlashes = afterSlashes[..<hash] }
        let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" } ?? afterSlashes.endIndex
        let (host, port) = try Self.authority(afterSlashes[..<authorityEnd], scheme: scheme)
        try self.init(scheme: scheme, host: host, port: port, pathAndQuery: afterSlashes[authorityEnd...])
    }

    /// The parts of a URL already taken apart (a resolved reference); `pathAndQuery` as it
    /// follows the authority, an empty path standing for `/`.
    init(scheme: Scheme, host: String, port: UInt16, pathAndQuery: Substring) throws(Refusal) {
        guard pathAndQuery.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x23 }) else {
            throw Refusal(reason: "a path that is not visible ASCII")
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        if pathAndQuery.isEmpty {
            target = "/"
        } else if pathAndQuery.hasPrefix("?") {
            target = "/" + pathAndQuery
        } else {
            target = String(pathAndQuery)
        }
    }

    /// `host[:port]` as the `Host` header names it: IPv6 in brackets, the port left out when
    /// it is the scheme's own.
    public var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == scheme.defaultPort ? name : "\(name):\(port)"
    }

    /// `scheme://authority`: two URLs of one origin (RFC 6454) share scheme, host and port.
    public var origin: String { "\(scheme.rawValue)://\(authority)" }

    public func isSameOrigin(as other: HTTPURL) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    /// The path without the query.
    var path: Substring { target[..<(target.firstIndex(of: "?") ?? target.endIndex)] }

    public var description: String { origin + target }

    private static func authority(_ authority: Substring, scheme: Scheme) throws(Refusal) -> (String, UInt16) {
        guard !authority.contains("@") else { throw Refusal(reason: "a URL with a user name or password") }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Refusal(reason: "a URL with an unclosed [ in its host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Refusal(reason: "a URL with text after its IPv6 host") }
                portPart = after.dropFirst()
            }
            guard let address = IPAddress(String(hostPart)), address.family == .v6 else {
                throw Refusal(reason: "a URL whose bracketed host is not an IPv6 address")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        var port = scheme.defaultPort
        if let portPart {
            guard !portPart.isEmpty, portPart.utf8.count <= 5, portPart.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(portPart), (1...65535).contains(number) else {
                throw Refusal(reason: "a URL whose port is not 1 to 65535")
            }
            port = UInt16(number)
        }
        let host = hostPart.lowercased()
        guard !host.isEmpty else { throw Refusal(reason: "a URL without a host") }
        guard authority.hasPrefix("[") || isNameOrIPv4(host) else {
            throw Refusal(reason: "a URL whose host is neither a DNS name nor an IP address")
        }
        return (host, port)
    }

    /// Letters, digits, hyphens, underscores and dots, at most 253 bytes (254 with the root's
    /// dot): nothing that could end the `Host` header or take part in the target. An IPv4
    /// literal is of the same bytes.
    private static func isNameOrIPv4(_ host: String) -> Bool {
        host.utf8.count <= 254 && !host.hasPrefix(".")
            && host.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }
}
