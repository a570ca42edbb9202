import Testing
@testable import EventLoop

@Suite struct CIDRTests {
    private func address(_ text: String) throws -> IPAddress {
        try #require(IPAddress(text))
    }

    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("192.168.1.1/32", "192.168.1.1/32"),
        ("192.168.1.1", "192.168.1.1/32"),
        ("2001:db8::/32", "2001:db8::/32"),
        ("::/0", "::/0"),
        ("::1", "::1/128"),
        ("2001:DB8:0:0::1/128", "2001:db8::1/128"),
        ("::ffff:10.0.0.0/104", "::ffff:10.0.0.0/104"),
        // Host bits are cleared.
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("172.16.255.255/12", "172.16.0.0/12"),
        ("192.168.1.129/25", "192.168.1.128/25"),
        ("1.2.3.4/0", "0.0.0.0/0"),
        ("2001:db8:ffff::1/32", "2001:db8::/32"),
        ("2001:db8::ffff/127", "2001:db8::fffe/127"),
        ("2001:db8:1:2:3:4:5:6/64", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:4:5:6/65", "2001:db8:1:2:8000::/65"),
        ("ffff::/1", "8000::/1"),
    ])
    func parsesAndPrints(text: String, printed: String) throws {
        #expect(try #require(CIDR(text)).description == printed)
    }

    @Test(arguments: [
        "", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/08", "10.0.0.0/8/8",
        "10.0.0.0/ 8", "10.0.0.0 /8", "10.0.0/8", "::/129", "::/1000", "2001:db8::/0032", "::/x",
        "[::1]/128", "fe80::1%eth0/64", "10.0.0.0/8 ", "localhost/8", "10.0.0.0/１",
    ])
    func rejectsMalformedRanges(text: String) {
        #expect(CIDR(text) == nil)
    }

    @Test func buildsFromAnAddressAndPrefix() throws {
        let range = try #require(CIDR(address: try address("10.9.8.7"), prefixLength: 16))
        #expect(range.address == (try address("10.9.0.0")))
        #expect(range.prefixLength == 16)
        #expect(CIDR(address: try address("10.9.8.7"), prefixLength: 33) == nil)
        #expect(CIDR(address: try address("::1"), prefixLength: -1) == nil)
        #expect(CIDR(address: try address("::1"), prefixLength: 129) == nil)
    }

    @Test func ipv4RangeContainsItsFirstAndLastAddress() throws {
        let range = try #require(CIDR("192.168.4.0/22"))
        #expect(range.contains(try address("192.168.4.0")))
        #expect(range.contains(try address("192.168.7.255")))
        #expect(!range.contains(try address("192.168.3.255")))
        #expect(!range.contains(try address("192.168.8.0")))
    }

    @Test func ipv6RangeContainsItsFirstAndLastAddress() throws {
        let range = try #require(CIDR("2001:db8:0:8000::/49"))
        #expect(range.contains(try address("2001:db8:0:8000::")))
        #expect(range.contains(try address("2001:db8:0:ffff:ffff:ffff:ffff:ffff")))
        #expect(!range.contains(try address("2001:db8:0:7fff:ffff:ffff:ffff:ffff")))
        #expect(!range.contains(try address("2001:db8:1::")))
    }

    @Test func rangeAcrossTheWordBoundaryChecksBothWords() throws {
        let range = try #require(CIDR("2001:db8::8000:0:0:0/65"))
        #expect(range.contains(try address("2001:db8::8000:0:0:1")))
        #expect(range.contains(try address("2001:db8::ffff:ffff:ffff:ffff")))
        #expect(!range.contains(try address("2001:db8::7fff:ffff:ffff:ffff")))
        #expect(!range.contains(try address("2001:db9::8000:0:0:0")))
    }

    @Test func zeroPrefixContainsEverythingOfItsFamily() throws {
        let v4 = try #require(CIDR("0.0.0.0/0"))
        #expect(v4.contains(try address("0.0.0.0")))
        #expect(v4.contains(try address("255.255.255.255")))
        #expect(!v4.contains(try address("2001:db8::1")))
        let v6 = try #require(CIDR("::/0"))
        #expect(v6.contains(try address("::")))
        #expect(v6.contains(try address("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")))
    }

    @Test func fullPrefixContainsOnlyThatAddress() throws {
        let v4 = try #require(CIDR("203.0.113.7/32"))
        #expect(v4.contains(try address("203.0.113.7")))
        #expect(!v4.contains(try address("203.0.113.6")))
        #expect(!v4.contains(try address("203.0.113.8")))
        let v6 = try #require(CIDR("2001:db8::7/128"))
        #expect(v6.contains(try address("2001:db8::7")))
        #expect(!v6.contains(try address("2001:db8::6")))
        #expect(!v6.contains(try address("2001:db8::8")))
        #expect(!v6.contains(try address("2001:db8:0:0:1::7")))
    }

    @Test func mappedIPv6AddressMatchesIPv4Range() throws {
        let range = try #require(CIDR("10.0.0.0/8"))
        #expect(range.contains(try address("::ffff:10.1.2.3")))
        #expect(!range.contains(try address("::ffff:11.1.2.3")))
        // The deprecated IPv4-compatible form is not a mapped address.
        #expect(!range.contains(try address("::10.1.2.3")))
        #expect(!range.contains(try address("2001:db8::10.1.2.3")))
    }

    @Test func ipv4AddressMatchesMappedIPv6Range() throws {
        let mapped = try #require(CIDR("::ffff:10.0.0.0/104"))
        #expect(mapped.contains(try address("10.200.0.1")))
        #expect(!mapped.contains(try address("11.0.0.1")))
        let single = try #require(CIDR("::ffff:127.0.0.1"))
        #expect(single.contains(try address("127.0.0.1")))
        #expect(!single.contains(try address("127.0.0.2")))
        #expect(try #require(CIDR("::/0")).contains(try address("192.0.2.1")))
        #expect(!(try #require(CIDR("2001:db8::/32")).contains(try address("192.0.2.1"))))
    }

    @Test func equalRangesCompareEqualWhateverTheHostBits() {
        #expect(CIDR("10.1.2.3/8") == CIDR("10.0.0.0/8"))
        #expect(CIDR("10.0.0.0/8") != CIDR("10.0.0.0/9"))
    }
}
