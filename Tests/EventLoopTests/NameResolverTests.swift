import Testing
@testable import EventLoop

@Suite struct NameResolverTests {
    /// Longer than the 63 bytes a DNS label may have: the C library refuses it before it would
    /// send a query, so the test needs no network and no DNS server.
    static let unresolvable = String(repeating: "a", count: 64) + ".invalid"

    @Test func localhostResolvesToLoopbackAddressesOnly() throws {
        let addresses = try NameResolver.addresses(of: "localhost")
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0 == IPAddress("127.0.0.1") || $0 == IPAddress("::1") }, "\(addresses)")
    }

    @Test(arguments: ["192.0.2.7", "2001:db8::1", "::ffff:192.0.2.7"])
    func anAddressLiteralResolvesToItself(literal: String) throws {
        #expect(try NameResolver.addresses(of: literal) == [IPAddress(literal)!])
    }

    @Test func anUnresolvableNameFailsForGoodWithTheResolversReason() {
        #expect {
            try NameResolver.addresses(of: Self.unresolvable)
        } throws: { error in
            guard let error = error as? NameResolutionError else { return false }
            return error.host == Self.unresolvable && !error.reason.isEmpty && error.isPermanent
                && error.description == "cannot resolve \"\(Self.unresolvable)\": \(error.reason)"
        }
    }

    @Test(arguments: ["", "local\u{0}host"])
    func anEmptyNameOrOneWithNULIsRefusedBeforeAnyLookup(host: String) {
        #expect(throws: NameResolutionError(host: host, reason: "not a host name", isPermanent: true)) {
            try NameResolver.addresses(of: host)
        }
    }

    @Test func theErrorStaysOneLineWhateverTheName() {
        let error = NameResolutionError(host: "evil\nhost", reason: "Name or service not known", isPermanent: true)
        #expect(error.description == #"cannot resolve "evil\nhost": Name or service not known"#)
    }
}
