/// Which redirect URIs a client may name (OAuth 2.1 2.3.1 and 7.4, RFC 8252 7): an absolute
/// URI without a fragment; `https:` anywhere, `http:` only to this machine (a native app's
/// loopback listener), or an app's own scheme. Never a scheme a browser would run or read
/// (`javascript:`, `data:`, `file:`...). Compared exactly afterwards, so nothing here
/// normalizes.
public enum RedirectURI {
    /// Longer is refused (and so is a longer `client_id`): a URI in an address bar beyond
    /// this is an attack, not an app.
    public static let maxBytes = 2_000

    static let refusedSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "about", "blob", "filesystem"]

    /// Whether a client may register `text`.
    public static func isAllowed(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count <= maxBytes, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !text.contains("#"),
              let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
              scheme.utf8.allSatisfy(isSchemeByte) else { return false }
        let rest = text[text.index(after: colon)...]
        switch scheme {
        case "https":
            return host(of: rest).map { !$0.isEmpty } ?? false
        case "http":
            return host(of: rest).map(isLoopback) ?? false
        default:
            return !refusedSchemes.contains(String(scheme)) && !rest.isEmpty
        }
    }

    /// The host of `//host[:port]/...`, lowercase, brackets kept; nil without an authority or
    /// with userinfo (`https://good.example@evil.example/` shows one host and goes to another).
    public static func host(of rest: Substring) -> String? {
        guard rest.hasPrefix("//") else { return nil }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" }
        guard !authority.contains("@") else { return nil }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return authority[...close].lowercased()
        }
        return authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map { $0.lowercased() }
    }

    /// The host of a whole URI, for the consent page ("its redirect host in full").
    public static func host(ofURI text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return host(of: text[text.index(after: colon)...])
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "[::1]" || (host.hasPrefix("127.") && host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (48...57).contains($0) })
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
