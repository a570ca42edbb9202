import Testing
@testable import EventLoop

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("0.0.0.0", "0.0.0.0"),
        ("127.0.0.1", "127.0.0.1"),
        ("255.255.255.255", "255.255.255.255"),
        ("10.20.30.40", "10.20.30.40"),
        ("192.0.2.1", "192.0.2.1"),
    ])
    func parsesAndPrintsDottedQuads(text: String, printed: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.family == .v4)
        #expect(address.description == printed)
    }

    @Test(arguments: [
        "", "1", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.256", "01.2.3.4", "1.2.3.04", "010.0.0.1",
        "1.2.3.", ".1.2.3", "1..2.3", "1.2.3.4 ", " 1.2.3.4", "1.2.3.-4", "+1.2.3.4", "0x7f.0.0.1",
        "1.2.3.4/8", "a.b.c.d", "１.2.3.4", "1.2.3.4\u{0}", "4294967295", "99999999999.0.0.1",
    ])
    func rejectsMalformedIPv4(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: [
        ("::", "::"),
        ("::1", "::1"),
        ("1::", "1::"),
        ("2001:db8::1", "2001:db8::1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("2001:DB8::ABCD", "2001:db8::abcd"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
        ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
        ("fe80::1:2", "fe80::1:2"),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
        ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
        ("::FFFF:192.0.2.128", "::ffff:192.0.2.128"),
        ("0:0:0:0:0:ffff:c000:280", "::ffff:192.0.2.128"),
        ("::1.2.3.4", "::102:304"),
        ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
    ])
    func parsesAndPrintsIPv6(text: String, printed: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.family == .v6)
        #expect(address.description == printed)
    }

    /// RFC 5952 section 4: leading zeros dropped, `::` for the longest run (the first of
    /// equal runs) and never for a single group, lowercase.
    @Test(arguments: [
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:db8::0:1", "2001:db8::1"),
        ("2001:db8::1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:DB8:0:0:1::1", "2001:db8::1:0:0:1"),
        ("2001:db8:0:0:0::1", "2001:db8::1"),
        ("2001:db8:0:0::1", "2001:db8::1"),
        ("2001:db8::aaaa:0:0:1", "2001:db8::aaaa:0:0:1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        ("2001:db8:0:0:1:0:0:0", "2001:db8:0:0:1::"),
        ("0:0:1:0:0:0:0:0", "0:0:1::"),
        ("2001:db8:aaaa:bbbb:cccc:dddd:eeee:AAAA", "2001:db8:aaaa:bbbb:cccc:dddd:eeee:aaaa"),
        ("2001:db8::0001", "2001:db8::1"),
    ])
    func printsRFC5952CanonicalForm(text: String, printed: String) throws {
        #expect(try #require(IPAddress(text)).description == printed)
    }

    @Test(arguments: [
        ":", ":::", "1:", ":1", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", "1:::2", "::1:",
        "12345::", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "g::1", "fe80::1%eth0", "fe80::1%1",
        "[::1]", "[::1]:80", " ::1", "::1 ", "::ffff:1.2.3", "::ffff:1.2.3.256", "::ffff:01.2.3.4",
        "::1.2.3.4:5", "1.2.3.4::", "1:2:3:4:5:6:7:1.2.3.4", "1::2:3:4:5:6:1.2.3.4", "::ffff:1.2.3.4.5",
        "::ffff:a.2.3.4", "-1::", "::\u{0}", "1:2:3:4:5:6:7:8:",
    ])
    func rejectsMalformedIPv6(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func roundTripsBytes() throws {
        let v4 = try #require(IPAddress(bytes: [192, 0, 2, 1]))
        #expect(v4.family == .v4)
        #expect(v4.description == "192.0.2.1")
        #expect(v4.bytes == [192, 0, 2, 1])
        #expect(v4.ipv4Value == 0xC000_0201)
        let raw: [UInt8] = [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xAB, 0xCD, 0, 1]
        let v6 = try #require(IPAddress(bytes: raw))
        #expect(v6.family == .v6)
        #expect(v6.description == "2001:db8::abcd:1")
        #expect(v6.bytes == raw)
        #expect(v6.ipv4Value == nil)
        #expect(try #require(IPAddress("2001:db8::abcd:1")).bytes == raw)
    }

    @Test func readsBytesFromARawBuffer() {
        let raw: [UInt8] = [10, 0, 0, 7]
        #expect(raw.withUnsafeBytes { IPAddress(bytes: $0) } == IPAddress("10.0.0.7"))
    }

    @Test func rejectsOtherByteCounts() {
        #expect(IPAddress(bytes: []) == nil)
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 5)) == nil)
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 15)) == nil)
    }

    @Test func buildsIPv4FromItsValue() {
        #expect(IPAddress(ipv4: 0x7F00_0001).description == "127.0.0.1")
    }

    @Test func unmapsIPv4MappedAddresses() throws {
        let mapped = try #require(IPAddress("::ffff:203.0.113.9"))
        #expect(mapped.unmappedV4 == IPAddress("203.0.113.9"))
        #expect(mapped.unmappedV4?.family == .v4)
    }

    @Test func leavesOtherAddressesUnmapped() {
        #expect(IPAddress("203.0.113.9")?.unmappedV4 == nil)
        #expect(IPAddress("::203.0.113.9")?.unmappedV4 == nil)
        #expect(IPAddress("::fffe:203.0.113.9")?.unmappedV4 == nil)
        #expect(IPAddress("1::ffff:203.0.113.9")?.unmappedV4 == nil)
        #expect(IPAddress("2001:db8::1")?.unmappedV4 == nil)
    }

    @Test func comparesByValueNotSpelling() {
        #expect(IPAddress("2001:db8::1") == IPAddress("2001:0DB8:0:0:0:0:0:0001"))
        #expect(IPAddress("::ffff:1.2.3.4") == IPAddress("::ffff:102:304"))
        #expect(Set([IPAddress("::1"), IPAddress("0:0:0:0:0:0:0:1")]).count == 1)
    }

    @Test func keepsFamiliesApart() {
        // 1.2.3.4 and its mapped form are the same host, but not the same value.
        #expect(IPAddress("1.2.3.4") != IPAddress("::ffff:1.2.3.4"))
        #expect(IPAddress("0.0.0.0") != IPAddress("::"))
    }

    @Test func reparsesItsOwnOutputForRandomText() {
        // Random strings over the address alphabet: parsing must never trap, and whatever
        // parses must print to text that parses back to the same address.
        let alphabet = Array("0123456789abcdefABCDEF:.:::/%[]")
        var generator = SystemRandomNumberGenerator()
        var parsed = 0
        for _ in 0..<50_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "0" })
            guard let address = IPAddress(text) else { continue }
            parsed += 1
            #expect(IPAddress(address.description) == address, "\(text)")
            #expect(IPAddress(bytes: address.bytes) == address, "\(text)")
        }
        #expect(parsed > 0)
    }

    @Test func printsRandomAddressesCanonically() {
        // Canonical text is a fixed point: printing what was parsed from it changes nothing.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // Groups biased toward zero so runs of zeros, the hard part of RFC 5952, are common.
            let bytes: [UInt8] = (0..<8).flatMap { _ -> [UInt8] in
                Bool.random(using: &generator) ? [0, 0] : [UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator)]
            }
            guard let address = IPAddress(bytes: bytes) else { continue }
            let text = address.description
            #expect(IPAddress(text)?.description == text)
            #expect(!text.contains(":::"))
            #expect(text.split(separator: "::", omittingEmptySubsequences: false).count <= 2)
        }
    }
}
