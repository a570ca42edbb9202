import Testing
@testable import relaydeckd

@Suite struct ConfigPublicURLTests {
    @Test(arguments: [
        ("https://relay.example.com", "https://relay.example.com"),
        ("https://relay.example.com/", "https://relay.example.com"),
        ("HTTPS://Relay.Example.COM", "https://relay.example.com"),
        ("https://relay.example.com:443", "https://relay.example.com"),
        ("http://relay.example.com:80/", "http://relay.example.com"),
        ("https://relay.example.com:8443", "https://relay.example.com:8443"),
        ("http://10.0.0.5:8080", "http://10.0.0.5:8080"),
        ("http://[2001:DB8::1]:8080/", "http://[2001:db8::1]:8080"),
        ("https://[::1]", "https://[::1]"),
        ("http://localhost:3000", "http://localhost:3000"),
    ])
    func normalizesOrigins(text: String, origin: String) throws {
        #expect(try load(["PUBLIC_URL": text]).publicURL == origin)
    }

    @Test(arguments: [
        ("relay.example.com", "PUBLIC_URL: expected an origin like https://host or http://host:port (got \"relay.example.com\")"),
        ("https:relay.example.com", "PUBLIC_URL: expected an origin like https://host or http://host:port (got \"https:relay.example.com\")"),
        ("ftp://relay.example.com", "PUBLIC_URL: expected https:// or http:// (got \"ftp://relay.example.com\")"),
        ("https://relay.example.com/app", "PUBLIC_URL: expected an origin only, without a path, query or fragment (got \"https://relay.example.com/app\")"),
        ("https://relay.example.com//", "PUBLIC_URL: expected an origin only, without a path, query or fragment (got \"https://relay.example.com//\")"),
        ("https://relay.example.com?x=1", "PUBLIC_URL: expected an origin only, without a path, query or fragment (got \"https://relay.example.com?x=1\")"),
        ("https://relay.example.com#top", "PUBLIC_URL: expected an origin only, without a path, query or fragment (got \"https://relay.example.com#top\")"),
        ("https://relay_example.com", "PUBLIC_URL: host must be a DNS name, an IPv4 address or an [IPv6] address (got \"https://relay_example.com\")"),
        ("https://", "PUBLIC_URL: host must be a DNS name, an IPv4 address or an [IPv6] address (got \"https://\")"),
        ("https://a..b", "PUBLIC_URL: host must be a DNS name, an IPv4 address or an [IPv6] address (got \"https://a..b\")"),
        ("https://[::1", "PUBLIC_URL: host must be a DNS name, an IPv4 address or an [IPv6] address (got \"https://[::1\")"),
        ("https://[1.2.3.4]", "PUBLIC_URL: host must be a DNS name, an IPv4 address or an [IPv6] address (got \"https://[1.2.3.4]\")"),
        ("https://::1", "PUBLIC_URL: host must be a DNS name, an IPv4 address or an [IPv6] address (got \"https://::1\")"),
        ("https://relay.example.com:0", "PUBLIC_URL: port must be a number from 1 to 65535 (got \"https://relay.example.com:0\")"),
        ("https://relay.example.com:65536", "PUBLIC_URL: port must be a number from 1 to 65535 (got \"https://relay.example.com:65536\")"),
        ("https://relay.example.com:", "PUBLIC_URL: port must be a number from 1 to 65535 (got \"https://relay.example.com:\")"),
    ])
    func refusesWhatIsNotAnOrigin(text: String, message: String) {
        #expect(loadError(["PUBLIC_URL": text])?.description == message)
    }

    @Test func neverQuotesAURLWithUserinfo() throws {
        let error = try #require(loadError(["PUBLIC_URL": "https://admin:hunter2@relay.example.com"]))
        #expect(error.description == "PUBLIC_URL: expected an origin only, without a user name or password")
        #expect(!leaks("hunter2", in: error.description))
    }
}
