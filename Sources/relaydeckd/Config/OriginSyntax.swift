import EventLoop

/// Web origins (`scheme://host[:port]`, RFC 6454) for `PUBLIC_URL` and the APNs endpoints.
enum OriginSyntax {
    enum Problem: Error, Equatable {
        case notAnOrigin, scheme, path, userinfo, host, port

        /// `userinfo` must not quote the value: it may hold a password.
        var quotesValue: Bool { self != .userinfo }
    }

    /// `text` as the origin a browser would send in `Origin`: scheme and host lowercase,
    /// an IPv6 host canonical in brackets, the scheme's default port (80, 443) dropped, and
    /// one trailing `/` dropped. A path, query, fragment or userinfo is a problem.
    static func normalize(_ text: String, schemes: [String]) throws(Problem) -> String {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { throw .notAnOrigin }
        let scheme = text[..<colon].lowercased()
        guard schemes.contains(scheme) else { throw .scheme }
        let rest = text[text.utf8.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex(where: Self.endsAuthority) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw .userinfo }
        let remainder = rest[authorityEnd...]
        guard remainder.isEmpty || remainder == "/" else { throw .path }

        let hostText: Substring
        let portText: Substring?
        var host: String
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .host }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw .host }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard let address = IPAddress(String(hostText)), address.family == .v6 else { throw .host }
            host = "[\(address)]"
        } else {
            let parts = authority.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .host }
            hostText = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard ConfigSyntax.isBundleID(hostText.utf8) else { throw .host }
            host = hostText.lowercased()
        }
        guard let portText else { return "\(scheme)://\(host)" }
        guard let port = ConfigSyntax.decimal(String(portText)), portText.utf8.count <= 5, (1...65535).contains(port) else {
            throw .port
        }
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(port)"
    }

    private static func endsAuthority(_ c: Character) -> Bool {
        c == "/" || c == "?" || c == "#"
    }

    /// The message for `problem` in `variable`, quoting `text` unless it may hold a password.
    static func error(_ problem: Problem, variable: String, text: String, schemes: [String]) -> ConfigError {
        let example = schemes.contains("http") && schemes.contains("https") && schemes.count == 2
            ? "https://host or http://host:port" : "\(schemes.first ?? "https")://host"
        let message = switch problem {
        case .notAnOrigin: "expected an origin like \(example)"
        case .scheme: "expected \(schemes.map { "\($0)://" }.joined(separator: " or "))"
        case .path: "expected an origin only, without a path, query or fragment"
        case .userinfo: "expected an origin only, without a user name or password"
        case .host: "host must be a DNS name, an IPv4 address or an [IPv6] address"
        case .port: "port must be a number from 1 to 65535"
        }
        return ConfigError(variable, problem.quotesValue ? "\(message) (got \(ConfigError.quoted(text)))" : message)
    }
}
