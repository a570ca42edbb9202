#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import HTTP

/// Whether a browser's `Origin` and a request's `Host` are this server's own. The MCP
/// endpoint checks them against DNS rebinding
/// (`2026-07-28/basic/transports/streamable-http#security-endpoint`, `mcp.md#connect`), the
/// web console against pages elsewhere using its session cookie.
///
/// The own origin is `PUBLIC_URL` when set, else the scheme this server speaks (HTTPS with
/// `TLS_CERT_FILE`: the TLS transport then carries every connection, so the setting is what
/// each request came over) and the request's `Host`. A page of `http://evil.example:8080`
/// whose name was made to point at 127.0.0.1 (DNS rebinding) sends that `Host` and a
/// matching `Origin`, so the `Host` itself must be a name of this server: with `PUBLIC_URL`
/// its host, or one of the names below; without it only the names below, as a server that
/// is reached by another name has `PUBLIC_URL` set (the README says so):
/// - `localhost` and `*.localhost` (RFC 6761: they never leave the machine), any IP address
///   (127.0.0.0/8, `[::1]`, a LAN address: no name a rebinding attacker controls), and
/// - the machine's own host name (`gethostname`), with and without its domain.
/// A proxy that passes its upstream address as `Host` (nginx's default `127.0.0.1:8080`)
/// still works, with or without `PUBLIC_URL`; a client that is not a browser sends no
/// `Origin`, and `curl http://127.0.0.1:8080/mcp` sends a loopback `Host`.
enum OwnOrigin {
    static let refused = APIError(403, "forbidden", "The Origin header is not the origin of this server.")
    /// `403` rather than `421 Misdirected Request`: the contract's error table has `403
    /// forbidden` for a request this server will not serve, and a `421` invites a client to
    /// try again on another connection, which would fail the same way.
    static let refusedHost = APIError(403, "forbidden",
                                      "The Host header is not a name of this server. Use its address, or set PUBLIC_URL on the server.")

    /// The `Host` check and, when an `Origin` is sent, the `Origin` check: the screen of the
    /// MCP endpoint and of the web console's sign-in routes.
    static func screen(_ head: HTTPRequestHead, _ configuration: APIConfiguration) throws(APIError) {
        try checkHost(head, configuration)
        try checkIfPresent(head, configuration)
    }

    /// Exactly one `Origin`, the server's own: a change made with the session cookie. A
    /// missing one is refused too.
    static func require(_ head: HTTPRequestHead, _ configuration: APIConfiguration) throws(APIError) {
        let origins = head.headers("origin")
        guard origins.count == 1 else { throw refused }
        try checkOne(origins[0], head, configuration)
    }

    /// An `Origin`, when sent, must be one and the server's own; a client that is not a
    /// browser (every agent) sends none and passes.
    static func checkIfPresent(_ head: HTTPRequestHead, _ configuration: APIConfiguration) throws(APIError) {
        let origins = head.headers("origin")
        guard !origins.isEmpty else { return }
        guard origins.count == 1 else { throw refused }
        try checkOne(origins[0], head, configuration)
    }

    private static func checkOne(_ origin: String, _ head: HTTPRequestHead, _ configuration: APIConfiguration) throws(APIError) {
        let origin = origin.lowercased()
        if let publicOrigin = configuration.publicOrigin {
            guard origin == publicOrigin.lowercased() else { throw refused }
            return
        }
        let scheme = configuration.servesHTTPS ? "https://" : "http://"
        guard let host = head.header("host")?.lowercased(), !host.isEmpty, origin == scheme + host else { throw refused }
    }

    /// `403` unless the `Host` names this server (see the type's comment). Without a `Host`
    /// (HTTP/1.0) there is nothing a rebinding page could have chosen.
    static func checkHost(_ head: HTTPRequestHead, _ configuration: APIConfiguration) throws(APIError) {
        guard let host = head.header("host") else { return }
        let publicHost = configuration.publicOrigin.flatMap { hostName(ofOrigin: $0) }
        guard isOwn(host: host, publicHost: publicHost, machineNames: machineNames) else { throw refusedHost }
    }

    /// Whether the `Host` value `host` (`name[:port]`, `[v6][:port]`) is one of the server's.
    static func isOwn(host: String, publicHost: String?, machineNames: Set<String>) -> Bool {
        isIPv4Authority(host) || isOwnByName(host: host, publicHost: publicHost, machineNames: machineNames)
    }

    /// `a.b.c.d` or `a.b.c.d:port` (no leading zeros, each part at most 255), read from the
    /// bytes: what an agent on the machine or the network sends (`127.0.0.1:8080`), and an
    /// address is always the server's own. It accepts a part of what `isOwnByName` accepts,
    /// without the lowercased copy, the substrings and the characters that cost 13,000
    /// instructions, 3% of an MCP `update_task` call (`bench/cost.py --callgrind mcp`).
    static func isIPv4Authority(_ host: String) -> Bool {
        var parts = 0, value = 0, digits = 0, inPort = false, portDigits = 0
        for byte in host.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if inPort {
                    portDigits += 1
                    if portDigits > 5 { return false }
                    continue
                }
                if digits > 0 && value == 0 { return false }  // a leading zero
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                if value > 255 { return false }
            case UInt8(ascii: "."):
                guard !inPort, digits > 0, parts < 3 else { return false }
                parts += 1
                value = 0
                digits = 0
            case UInt8(ascii: ":"):
                guard !inPort, digits > 0, parts == 3 else { return false }
                inPort = true
            default:
                return false
            }
        }
        return inPort ? portDigits > 0 : (digits > 0 && parts == 3)
    }

    /// The whole rule of the type's comment, on the name.
    static func isOwnByName(host: String, publicHost: String?, machineNames: Set<String>) -> Bool {
        guard let name = hostName(ofAuthority: Substring(host.lowercased())) else { return false }
        if name == publicHost { return true }
        if name.hasPrefix("[") { return IPAddress(String(name.dropFirst().dropLast())) != nil }
        if IPAddress(name) != nil { return true }
        var bare = Substring(name)
        if bare.hasSuffix(".") { bare = bare.dropLast() }
        if bare == "localhost" || bare.hasSuffix(".localhost") { return true }
        return machineNames.contains(String(bare))
    }

    /// The host of `authority` without its port, lowercased already; v6 keeps its brackets.
    /// Nil when it is not `host[:digits]`.
    static func hostName(ofAuthority authority: Substring) -> String? {
        let host: Substring
        let rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            rest = authority[authority.index(after: close)...]
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            rest = authority[colon...]
        } else {
            host = authority
            rest = ""
        }
        guard !host.isEmpty, rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isASCII) && rest.dropFirst().allSatisfy(\.isNumber)) else {
            return nil
        }
        return String(host)
    }

    /// `PUBLIC_URL`'s host (`https://tasks.example.com:8443` gives `tasks.example.com`).
    static func hostName(ofOrigin origin: String) -> String? {
        let origin = origin.lowercased()
        for scheme in ["https://", "http://"] where origin.hasPrefix(scheme) {
            return hostName(ofAuthority: origin.dropFirst(scheme.count))
        }
        return nil
    }

    /// The machine's own names, lowercased: the host name as `gethostname` gives it, its
    /// first label alone (`build1.lab.example` gives `build1` too), and that label in `.local`,
    /// the name mDNS (Avahi, Bonjour) answers for it on the home network (`raspberrypi.local`).
    /// Read once: a host renamed while the server runs keeps its old names until a restart.
    static let machineNames: Set<String> = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return names(ofHost: String(decoding: bytes, as: UTF8.self))
    }()

    /// The names of a machine whose host name is `hostName` (see `machineNames`).
    static func names(ofHost hostName: String) -> Set<String> {
        let name = hostName.lowercased()
        guard !name.isEmpty else { return [] }
        var names: Set = [name]
        if let first = name.split(separator: ".").first {
            names.insert(String(first))
            names.insert(first + ".local")
        }
        return names
    }
}
