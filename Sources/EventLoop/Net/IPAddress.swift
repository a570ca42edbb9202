/// An IPv4 or IPv6 address, as a value: parsed from text, printed canonically, compared and
/// hashed without allocating.
///
/// The 128 bits sit in two integers (an IPv4 address in the low 32 bits of `low`), so a
/// peer address taken from `accept` and matched against `TRUSTED_PROXIES` costs no heap
/// allocation. Pure: no syscalls, no name resolution.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// IPv4 or IPv6; an IPv4-mapped IPv6 address is `.v6` (see `unmappedV4`).
    public enum Family: Sendable { case v4, v6 }

    /// Which of the two the address is.
    public let family: Family
    /// Network byte order: bits 127...64 of an IPv6 address; 0 for IPv4.
    let high: UInt64
    /// Network byte order: bits 63...0 of an IPv6 address, or the IPv4 address in bits 31...0.
    let low: UInt64

    init(family: Family, high: UInt64, low: UInt64) {
        self.family = family
        self.high = high
        self.low = low
    }

    /// An IPv4 address from its 32-bit value (`10.0.0.1` is `0x0A00_0001`, host byte order).
    public init(ipv4 value: UInt32) {
        self.init(family: .v4, high: 0, low: UInt64(value))
    }

    /// The address of 4 (IPv4) or 16 (IPv6) bytes in network order; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard let address = bytes.withUnsafeBytes({ IPAddress(bytes: $0) }) else { return nil }
        self = address
    }

    /// The address of 4 (IPv4) or 16 (IPv6) bytes in network order, such as `sin_addr` or
    /// `sin6_addr` of a `sockaddr`; nil for any other count.
    public init?(bytes: UnsafeRawBufferPointer) {
        func word(_ from: Int, _ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in from..<(from + count) { value = value << 8 | UInt64(bytes[i]) }
            return value
        }
        switch bytes.count {
        case 4: self.init(family: .v4, high: 0, low: word(0, 4))
        case 16: self.init(family: .v6, high: word(0, 8), low: word(8, 8))
        default: return nil
        }
    }

    /// Strict dotted quad (no leading zeros like `010`, no short forms such as `10.1`), or
    /// IPv6 with `::` compression and an optional embedded IPv4 tail. A `%zone`, brackets and
    /// surrounding whitespace are refused: callers strip brackets from `[v6]:port` first.
    public init?(_ text: String) {
        var text = text
        guard let address = text.withUTF8({ IPAddress.parse(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = address
    }

    /// 4 or 16 bytes in network order.
    public var bytes: [UInt8] {
        switch family {
        case .v4: (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * UInt64($0))) }
        case .v6: (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? high : low) >> (56 - 8 * UInt64($0 % 8))) }
        }
    }

    /// The 32-bit value of an IPv4 address (host byte order); nil for IPv6.
    public var ipv4Value: UInt32? {
        family == .v4 ? UInt32(truncatingIfNeeded: low) : nil
    }

    /// The IPv4 address inside `::ffff:a.b.c.d`, if it is one. Dual-stack sockets report
    /// IPv4 peers this way.
    public var unmappedV4: IPAddress? {
        guard family == .v6, high == 0, low >> 32 == 0xFFFF else { return nil }
        return IPAddress(family: .v4, high: 0, low: low & 0xFFFF_FFFF)
    }

    /// `::ffff:a.b.c.d` for an IPv4 address; the address itself for IPv6.
    var mappedV6: IPAddress {
        family == .v4 ? IPAddress(family: .v6, high: 0, low: 0xFFFF_0000_0000 | low) : self
    }

    /// IPv4 dotted quad; IPv6 in RFC 5952 canonical form (lowercase, no leading zeros, the
    /// longest run of two or more zero groups compressed, the first on a tie) and
    /// `::ffff:1.2.3.4` for IPv4-mapped addresses.
    public var description: String {
        // 45 = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255", the longest form RFC 4291 allows.
        String(unsafeUninitializedCapacity: 45) { out in
            var writer = TextWriter(out: out)
            switch family {
            case .v4:
                writer.dottedQuad(UInt32(truncatingIfNeeded: low))
            case .v6 where high == 0 && low >> 32 == 0xFFFF:
                writer.ascii("::ffff:")
                writer.dottedQuad(UInt32(truncatingIfNeeded: low))
            case .v6:
                writer.ipv6Groups(high: high, low: low)
            }
            return writer.count
        }
    }
}

/// Appends ASCII into a buffer sized for the longest address; no bounds growth needed.
private struct TextWriter {
    let out: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    mutating func byte(_ value: UInt8) {
        out[count] = value
        count += 1
    }

    mutating func ascii(_ text: StaticString) {
        text.withUTF8Buffer { for c in $0 { byte(c) } }
    }

    mutating func decimal(_ value: UInt32) {
        if value >= 100 { byte(0x30 + UInt8(value / 100)) }
        if value >= 10 { byte(0x30 + UInt8(value / 10 % 10)) }
        byte(0x30 + UInt8(value % 10))
    }

    mutating func dottedQuad(_ value: UInt32) {
        decimal(value >> 24)
        byte(UInt8(ascii: "."))
        decimal(value >> 16 & 0xFF)
        byte(UInt8(ascii: "."))
        decimal(value >> 8 & 0xFF)
        byte(UInt8(ascii: "."))
        decimal(value & 0xFF)
    }

    mutating func hex(_ value: UInt16) {
        var started = false
        for shift in stride(from: 12, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: value >> UInt16(shift)) & 0x0F
            if digit != 0 || started || shift == 0 {
                byte(digit < 10 ? 0x30 + digit : 0x61 + digit - 10)
                started = true
            }
        }
    }

    mutating func ipv6Groups(high: UInt64, low: UInt64) {
        func group(_ i: Int) -> UInt16 {
            UInt16(truncatingIfNeeded: (i < 4 ? high : low) >> (48 - 16 * UInt64(i % 4)))
        }
        // RFC 5952 section 4.2: compress the longest run of zero groups, if at least two long.
        var bestStart = -1
        var bestLength = 1
        var runStart = 0
        var runLength = 0
        for i in 0..<8 {
            if group(i) == 0 {
                if runLength == 0 { runStart = i }
                runLength += 1
                if runLength > bestLength {
                    bestStart = runStart
                    bestLength = runLength
                }
            } else {
                runLength = 0
            }
        }
        var i = 0
        while i < 8 {
            if i == bestStart {
                byte(UInt8(ascii: ":"))
                if i == 0 { byte(UInt8(ascii: ":")) }
                i += bestLength
                continue
            }
            hex(group(i))
            if i < 7 { byte(UInt8(ascii: ":")) }
            i += 1
        }
    }
}

extension IPAddress {
    static func parse(_ text: UnsafeRawBufferPointer) -> IPAddress? {
        if text.contains(UInt8(ascii: ":")) { return parseIPv6(text) }
        guard let value = parseIPv4(text, from: 0) else { return nil }
        return IPAddress(ipv4: value)
    }

    /// Strict dotted quad in `text[from...]`: four decimal parts 0...255, no leading zeros.
    static func parseIPv4(_ text: UnsafeRawBufferPointer, from start: Int) -> UInt32? {
        var result: UInt32 = 0
        var part: UInt32 = 0
        var digits = 0
        var dots = 0
        for i in start..<text.count {
            let c = text[i]
            if c == UInt8(ascii: ".") {
                guard digits > 0, dots < 3 else { return nil }
                result = result << 8 | part
                part = 0
                digits = 0
                dots += 1
            } else if c >= 0x30 && c <= 0x39 {
                // A leading zero reads as octal to inet_aton; refuse it rather than guess.
                guard !(digits > 0 && part == 0) else { return nil }
                part = part * 10 + UInt32(c - 0x30)
                digits += 1
                guard part <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, dots == 3 else { return nil }
        return result << 8 | part
    }

    /// RFC 4291 section 2.2 text: up to eight groups of 1 to 4 hex digits, at most one `::`,
    /// and optionally a dotted quad in place of the last two groups.
    static func parseIPv6(_ text: UnsafeRawBufferPointer) -> IPAddress? {
        var groups = SIMD8<UInt16>()
        var count = 0
        var compressAt = -1
        var i = 0
        let n = text.count
        if n >= 2 && text[0] == UInt8(ascii: ":") && text[1] == UInt8(ascii: ":") {
            compressAt = 0
            i = 2
        }
        while i < n {
            let groupStart = i
            var value: UInt16 = 0
            while i < n, let digit = hexValue(text[i]) {
                guard i - groupStart < 4 else { return nil }
                value = value << 4 | UInt16(digit)
                i += 1
            }
            if i < n && text[i] == UInt8(ascii: ".") {
                guard count <= 6, let v4 = parseIPv4(text, from: groupStart) else { return nil }
                groups[count] = UInt16(truncatingIfNeeded: v4 >> 16)
                groups[count + 1] = UInt16(truncatingIfNeeded: v4)
                count += 2
                i = n
                break
            }
            guard i > groupStart, count < 8 else { return nil }
            groups[count] = value
            count += 1
            if i == n { break }
            guard text[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            if i < n && text[i] == UInt8(ascii: ":") {
                guard compressAt < 0 else { return nil }
                compressAt = count
                i += 1
            } else if i == n {
                return nil
            }
        }
        if compressAt >= 0 {
            // `::` stands for one or more zero groups.
            guard count <= 7 else { return nil }
            let tail = count - compressAt
            var expanded = SIMD8<UInt16>()
            for k in 0..<compressAt { expanded[k] = groups[k] }
            for k in 0..<tail { expanded[8 - tail + k] = groups[compressAt + k] }
            groups = expanded
        } else {
            guard count == 8 else { return nil }
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for k in 0..<4 { high = high << 16 | UInt64(groups[k]) }
        for k in 4..<8 { low = low << 16 | UInt64(groups[k]) }
        return IPAddress(family: .v6, high: high, low: low)
    }

    @inline(__always)
    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c &- 0x30
        case 0x61...0x66: c &- 0x61 &+ 10
        case 0x41...0x46: c &- 0x41 &+ 10
        default: nil
        }
    }
}
