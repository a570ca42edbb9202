import EventLoop

/// The addresses of the public internet, for an `admits` rule: a URL given by someone else (a
/// push subscription's endpoint, a client's metadata document) must not make the server a
/// client of its own machine or LAN, unless the administrator allows it.
public enum PublicAddresses {
    /// Ranges that are not the public internet: unspecified, loopback, RFC 1918, CGNAT,
    /// link-local, IETF protocol assignments, documentation, benchmarking, multicast, reserved
    /// and broadcast (IPv4); unspecified, loopback, IPv4-translated, discard, documentation,
    /// unique local, link-local, site-local and multicast (IPv6). An IPv4-mapped address is
    /// judged by its IPv4 address (`CIDR` matches it against the IPv4 ranges).
    static let notPublic: [CIDR] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
        "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32",
        "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].map { CIDR($0)! }

    /// True when `address` is on the public internet: the `admits` rule of a client that must
    /// not reach this machine or its networks.
    public static func isPublic(_ address: IPAddress) -> Bool {
        !notPublic.contains { $0.contains(address) }
    }

    /// True when `host` (a name or an IP literal, as `HTTPURL` keeps it) is known to be private
    /// without a lookup: a literal address that is not public, or `localhost` and the names
    /// under it (RFC 6761), `.local` (mDNS), `.internal`, `.home.arpa` and `.lan`.
    public static func isPrivateName(_ host: String) -> Bool {
        if let address = IPAddress(host) { return !isPublic(address) }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if name == "localhost" { return true }
        return [".localhost", ".local", ".internal", ".home.arpa", ".lan"].contains { name.hasSuffix($0) }
    }
}
