#if canImport(Glibc)
import Glibc
#endif

/// Host names to addresses through the C library's `getaddrinfo`: the sources of the `hosts`
/// line of /etc/nsswitch.conf, usually /etc/hosts and then DNS. In the static binary only
/// `files` and `dns` are sure to work (glibc 2.34 and later carry them inside; any other
/// source is a shared library of the build machine's glibc).
///
/// It blocks for as long as a DNS server takes to answer, so the loop thread never calls it:
/// a helper thread does, and hands the result back through `EventLoopHandle`.
public enum NameResolver {
    /// Every address of `host`, in the resolver's order (the order to try them in), each
    /// once. An IP address literal comes back as itself, without a lookup.
    public static func addresses(of host: String) throws(NameResolutionError) -> [IPAddress] {
        guard !host.isEmpty, !host.utf8.contains(0) else {
            throw NameResolutionError(host: host, reason: "not a host name", isPermanent: true)
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        // One entry per address instead of one per socket type.
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            let reason = status == EAI_SYSTEM ? Errno.current.description : String(cString: gai_strerror(status))
            throw NameResolutionError(host: host, reason: reason, isPermanent: Self.permanentStatuses.contains(status))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let info = entry?.pointee {
            if let address = address(of: info), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = info.ai_next
        }
        guard !addresses.isEmpty else { throw NameResolutionError(host: host, reason: "no IP address", isPermanent: true) }
        return addresses
    }

    /// The answers that say the name has no address, as opposed to a failure to ask now
    /// (`EAI_AGAIN`: no DNS server answered; `EAI_SYSTEM`, `EAI_MEMORY`): the name does not
    /// exist (`EAI_NONAME`), exists without an address (`EAI_NODATA`, glibc's -5, which the
    /// Glibc module does not export), or has none of the asked family (`EAI_ADDRFAMILY`, -9).
    static let permanentStatuses: Set<Int32> = [EAI_NONAME, -5, -9]

    private static func address(of info: addrinfo) -> IPAddress? {
        guard let socketAddress = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                withUnsafeBytes(of: $0.pointee.sin_addr) { IPAddress(bytes: $0) }
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                withUnsafeBytes(of: $0.pointee.sin6_addr) { IPAddress(bytes: $0) }
            }
        default:
            return nil
        }
    }
}

/// A name that did not resolve, with the resolver's reason (`Name or service not known`).
public struct NameResolutionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let reason: String
    /// The name has no address (it does not exist, or has none); false when the lookup
    /// failed for now (no DNS server answered) and may work later.
    public let isPermanent: Bool

    public init(host: String, reason: String, isPermanent: Bool) {
        self.host = host
        self.reason = reason
        self.isPermanent = isPermanent
    }

    public var description: String {
        // Quoted and escaped: a host with a newline still makes one line.
        "cannot resolve \(String(reflecting: host)): \(reason)"
    }
}
