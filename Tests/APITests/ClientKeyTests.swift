@testable import API
import EventLoop
import Testing

/// The address a per-client limit counts: X-Forwarded-For is believed only from trusted
/// proxies, and IPv6 clients count per /64.
@Suite struct ClientKeyTests {
    private static let proxies = [CIDR("10.0.0.0/8"), CIDR("192.168.0.0/16"), CIDR("fd00::/8")].compactMap { $0 }

    private func peer(_ text: String) throws -> PeerAddress {
        .ip(bytes: try #require(IPAddress(text)).bytes, port: 443)
    }

    private func resolve(_ peer: PeerAddress, _ forwardedFor: [String], trusted: [CIDR] = proxies) -> String {
        ClientKey.resolve(peer: peer, forwardedFor: forwardedFor, trusted: trusted).text
    }

    @Test func anUntrustedPeerIsTheClientWhateverItForwards() throws {
        #expect(resolve(try peer("203.0.113.9"), []) == "203.0.113.9")
        #expect(resolve(try peer("203.0.113.9"), ["198.51.100.1"]) == "203.0.113.9")
        #expect(resolve(try peer("203.0.113.9"), ["198.51.100.1"], trusted: []) == "203.0.113.9")
        #expect(resolve(try peer("10.0.0.1"), ["198.51.100.1"], trusted: []) == "10.0.0.1")
    }

    @Test func aTrustedPeerGivesTheRightmostUntrustedHop() throws {
        #expect(resolve(try peer("10.0.0.1"), ["198.51.100.1"]) == "198.51.100.1")
        #expect(resolve(try peer("10.0.0.1"), ["1.1.1.1, 2.2.2.2"]) == "2.2.2.2")
        // A client cannot pose as another by putting it first.
        #expect(resolve(try peer("10.0.0.1"), ["6.6.6.6, 2.2.2.2"]) == "2.2.2.2")
    }

    @Test func chainsOfTrustedProxiesAreWalked() throws {
        #expect(resolve(try peer("10.0.0.1"), ["3.3.3.3, 4.4.4.4, 192.168.1.1, 10.9.9.9"]) == "4.4.4.4")
        #expect(resolve(try peer("10.0.0.1"), ["  3.3.3.3 ,\t192.168.1.1 , 10.9.9.9 "]) == "3.3.3.3")
    }

    /// When every hop is a trusted proxy, the leftmost one is the best that is known.
    @Test func allHopsTrustedGiveTheLeftmost() throws {
        #expect(resolve(try peer("10.0.0.1"), ["192.168.7.7, 10.2.2.2"]) == "192.168.7.7")
        #expect(resolve(try peer("10.0.0.1"), []) == "10.0.0.1")
    }

    @Test func anEntryThatIsNotAnAddressStopsTheWalk() throws {
        #expect(resolve(try peer("10.0.0.1"), ["1.1.1.1, unknown, 10.0.0.7"]) == "10.0.0.7")
        #expect(resolve(try peer("10.0.0.1"), ["1.1.1.1, unknown"]) == "10.0.0.1")
        #expect(resolve(try peer("10.0.0.1"), ["1.1.1.1, 5.5.5.5:443"]) == "10.0.0.1")
        #expect(resolve(try peer("10.0.0.1"), ["1.1.1.1, "]) == "10.0.0.1")
        #expect(resolve(try peer("10.0.0.1"), ["1.1.1.1, [2001:db8::1]"]) == "10.0.0.1")
    }

    @Test func severalHeaderFieldsAreOneListInOrder() throws {
        #expect(resolve(try peer("10.0.0.1"), ["1.1.1.1", "2.2.2.2, 10.0.0.3"]) == "2.2.2.2")
        #expect(resolve(try peer("10.0.0.1"), ["5.5.5.5", "10.0.0.3"]) == "5.5.5.5")
        #expect(resolve(try peer("10.0.0.1"), ["5.5.5.5, 10.0.0.4", "192.168.0.9"]) == "5.5.5.5")
    }

    @Test func ipv6ClientsCountPerSixtyFour() throws {
        #expect(resolve(try peer("2001:db8:1:2:3:4:5:6"), []) == "2001:db8:1:2::/64")
        #expect(resolve(try peer("2001:db8:1:2:ffff::1"), []) == "2001:db8:1:2::/64")
        #expect(resolve(try peer("2001:db8:1:3::1"), []) == "2001:db8:1:3::/64")
        #expect(resolve(try peer("fd00::1"), ["2001:db8:aa:bb:cc::9"]) == "2001:db8:aa:bb::/64")
        #expect(resolve(try peer("10.0.0.1"), ["2001:db8::7, 10.1.1.1"]) == "2001:db8::/64")
    }

    @Test func anIPv4MappedPeerIsItsIPv4Address() throws {
        #expect(resolve(try peer("::ffff:203.0.113.5"), []) == "203.0.113.5")
        // A mapped peer matches IPv4 ranges.
        #expect(resolve(try peer("::ffff:10.0.0.1"), ["198.51.100.4"]) == "198.51.100.4")
        #expect(resolve(try peer("10.0.0.1"), ["::ffff:198.51.100.4"]) == "198.51.100.4")
    }

    /// A Unix socket peer is a reverse proxy on the same machine.
    @Test func aUnixPeerIsTrusted() {
        #expect(resolve(.unix, []) == "unix")
        #expect(resolve(.unix, [], trusted: []) == "unix")
        #expect(resolve(.unix, ["198.51.100.4"], trusted: []) == "198.51.100.4")
        #expect(resolve(.unix, ["198.51.100.4, 10.0.0.2"]) == "198.51.100.4")
        #expect(resolve(.unix, ["198.51.100.4, 10.0.0.2"], trusted: []) == "10.0.0.2")
        #expect(resolve(.unix, ["garbage"]) == "unix")
    }
}
