/// A range of addresses: a network address and a prefix length, as in `TRUSTED_PROXIES`.
public struct CIDR: Sendable, Hashable, CustomStringConvertible {
    /// The network address, with every bit after the prefix zero.
    public let address: IPAddress
    /// 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: Int

    /// The range of `prefixLength` bits starting at `address`; host bits in `address` are
    /// cleared. Nil when the prefix is out of range for the family.
    public init?(address: IPAddress, prefixLength: Int) {
        let bits = address.family == .v4 ? 32 : 128
        guard (0...bits).contains(prefixLength) else { return nil }
        let (high, low) = CIDR.masks(family: address.family, prefixLength: prefixLength)
        self.address = IPAddress(family: address.family, high: address.high & high, low: address.low & low)
        self.prefixLength = prefixLength
    }

    /// `10.0.0.0/8`, `2001:db8::/32`, or a single address (= `/32` or `/128`).
    ///
    /// Host bits set in the text are cleared, not refused: `10.1.2.3/8` is `10.0.0.0/8`, the
    /// range an operator who writes a host's address with its network's prefix means. The
    /// prefix is decimal without leading zeros (`/08` is refused) and at most 32 for IPv4
    /// or 128 for IPv6. Address syntax is that of `IPAddress.init(_:)`.
    public init?(_ text: String) {
        var text = text
        guard let range = text.withUTF8({ CIDR.parse(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = range
    }

    /// Whether `address` lies in this range. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
    /// how a dual-stack socket reports an IPv4 peer) matches IPv4 ranges, and an IPv4
    /// address matches IPv6 ranges that hold its mapped form.
    public func contains(_ address: IPAddress) -> Bool {
        let candidate: IPAddress
        switch (self.address.family, address.family) {
        case (.v4, .v4), (.v6, .v6):
            candidate = address
        case (.v4, .v6):
            guard let v4 = address.unmappedV4 else { return false }
            candidate = v4
        case (.v6, .v4):
            candidate = address.mappedV6
        }
        let (high, low) = CIDR.masks(family: self.address.family, prefixLength: prefixLength)
        return candidate.high & high == self.address.high && candidate.low & low == self.address.low
    }

    /// `address/prefixLength`, the address printed as `IPAddress.description` does.
    public var description: String {
        "\(address)/\(prefixLength)"
    }

    /// The network masks for the two words of `IPAddress`.
    static func masks(family: IPAddress.Family, prefixLength: Int) -> (high: UInt64, low: UInt64) {
        func mask(_ bits: Int, width: Int) -> UInt64 {
            let ones: UInt64 = width == 64 ? UInt64.max : (1 << UInt64(width)) - 1
            // Written out because a shift by the full width must give 0 here, not trap or wrap.
            if bits <= 0 { return 0 }
            if bits >= width { return ones }
            return ones & ~(ones >> UInt64(bits))
        }
        switch family {
        case .v4: return (0, mask(prefixLength, width: 32))
        case .v6: return (mask(prefixLength, width: 64), mask(prefixLength - 64, width: 64))
        }
    }

    static func parse(_ text: UnsafeRawBufferPointer) -> CIDR? {
        guard let slash = text.firstIndex(of: UInt8(ascii: "/")) else {
            guard let address = IPAddress.parse(text) else { return nil }
            return CIDR(address: address, prefixLength: address.family == .v4 ? 32 : 128)
        }
        let addressText = UnsafeRawBufferPointer(rebasing: text[..<slash])
        let prefixText = text[(slash + 1)...]
        guard let address = IPAddress.parse(addressText),
              (1...3).contains(prefixText.count),
              prefixText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              prefixText.count == 1 || prefixText.first != UInt8(ascii: "0")
        else { return nil }
        let prefix = prefixText.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return CIDR(address: address, prefixLength: prefix)
    }
}
