import CLinux
import EventLoop

/// `LISTEN` values: `host:port`, `[v6]:port` or `unix:/abs/path`.
enum ListenSyntax {
    enum Problem: Error, Equatable {
        case form, port, host, unbracketedIPv6, relativePath, longPath(max: Int)

        var message: String {
            switch self {
            case .form: "expected host:port, [v6]:port or unix:/path"
            case .port: "port must be a number from 0 to 65535"
            case .host: "host must be an IP address or localhost (names are not resolved)"
            case .unbracketedIPv6: "an IPv6 host needs brackets, like [::1]:8080"
            case .relativePath: "a unix socket path must be absolute, like unix:/run/relaydeck/http.sock"
            case .longPath(let max): "a unix socket path can have at most \(max) bytes"
            }
        }
    }

    /// Longest socket path: `sun_path` less its terminating NUL (107 bytes on Linux).
    static let maxUnixPathLength = relaydeck_sun_path_size() - 1

    static func parse(_ text: String) throws(Problem) -> Config.ListenAddress {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/") else { throw .relativePath }
            guard path.utf8.count <= maxUnixPathLength else { throw .longPath(max: maxUnixPathLength) }
            return .unix(path: path)
        }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .form }
            let inside = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { throw .form }
            guard let host = IPAddress(String(inside)), host.family == .v6 else { throw .host }
            return .tcp(host: host, port: try port(after.dropFirst()))
        }
        guard let colon = text.lastIndex(of: ":") else { throw .form }
        let hostText = text[..<colon]
        guard !hostText.isEmpty else { throw .form }
        guard !hostText.contains(":") else { throw .unbracketedIPv6 }
        let portNumber = try port(text[text.index(after: colon)...])
        if hostText.lowercased() == "localhost" {
            return .tcp(host: IPAddress(ipv4: 0x7F00_0001), port: portNumber)
        }
        guard let host = IPAddress(String(hostText)), host.family == .v4 else { throw .host }
        return .tcp(host: host, port: portNumber)
    }

    static func port(_ text: Substring) throws(Problem) -> UInt16 {
        let utf8 = text.utf8
        guard (1...5).contains(utf8.count), utf8.allSatisfy(ConfigSyntax.isDigit) else { throw .port }
        let value = utf8.reduce(0) { $0 * 10 + Int($1 &- 0x30) }
        guard let port = UInt16(exactly: value) else { throw .port }
        return port
    }
}
