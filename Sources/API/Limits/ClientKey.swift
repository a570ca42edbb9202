import EventLoop

/// The client a per-address limit counts, after trusted proxies. IPv6 clients count per /64,
/// since one host usually has a whole /64 to pick addresses from.
struct ClientKey: Sendable, Equatable {
    let text: String

    /// The rightmost address of `X-Forwarded-For` that is not a trusted proxy, when the peer
    /// itself is one; otherwise the peer. A Unix-socket peer is a local reverse proxy and
    /// trusted. An entry that is not an address stops the walk (the hop before it is used).
    static func resolve(peer: PeerAddress, forwardedFor: [String], trusted: [CIDR]) -> ClientKey {
        var current: IPAddress?
        var currentTrusted: Bool
        switch peer {
        case .unix:
            currentTrusted = true
        case .ip(let bytes, _):
            current = IPAddress(bytes: bytes)
            currentTrusted = current.map { address in trusted.contains { $0.contains(address) } } ?? false
        }
        if currentTrusted {
            let hops = forwardedFor.flatMap { $0.split(separator: ",") }
            for hop in hops.reversed() {
                let trimmed = hop.trimmingCharacters(in: " \t")
                guard let address = IPAddress(String(trimmed)) else { break }
                current = address
                currentTrusted = trusted.contains { $0.contains(address) }
                if !currentTrusted { break }
            }
        }
        guard let address = current else { return ClientKey(text: "unix") }
        return ClientKey(text: key(for: address))
    }

    static func key(for address: IPAddress) -> String {
        if let v4 = address.unmappedV4 { return v4.description }
        guard address.family == .v6 else { return address.description }
        let network = CIDR(address: address, prefixLength: 64)
        return network?.description ?? address.description
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
