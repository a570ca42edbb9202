import EventLoop
import Testing
@testable import relaydeckd

@Suite struct ConfigListenTests {
    @Test(arguments: [
        ("0.0.0.0:80", "0.0.0.0", 80),
        ("127.0.0.1:65535", "127.0.0.1", 65535),
        ("192.0.2.10:0", "192.0.2.10", 0),
        ("localhost:9000", "127.0.0.1", 9000),
        ("LocalHost:9000", "127.0.0.1", 9000),
        ("[::1]:8443", "::1", 8443),
        ("[::]:8080", "::", 8080),
        ("[2001:db8::1]:443", "2001:db8::1", 443),
    ] as [(String, String, UInt16)])
    func acceptsTCPAddresses(text: String, host: String, port: UInt16) throws {
        let config = try load(["LISTEN": text])
        #expect(config.listen == .tcp(host: try #require(IPAddress(host)), port: port))
    }

    @Test func acceptsAnAbsoluteUnixSocketPath() throws {
        #expect(try load(["LISTEN": "unix:/run/relaydeck/http.sock"]).listen == .unix(path: "/run/relaydeck/http.sock"))
    }

    @Test func acceptsTheLongestUnixSocketPath() throws {
        let path = "/" + String(repeating: "a", count: 106)
        #expect(try load(["LISTEN": "unix:" + path]).listen == .unix(path: path))
    }

    @Test(arguments: [
        ("8080", "LISTEN: expected host:port, [v6]:port or unix:/path (got \"8080\")"),
        (":8080", "LISTEN: expected host:port, [v6]:port or unix:/path (got \":8080\")"),
        ("[::1]8080", "LISTEN: expected host:port, [v6]:port or unix:/path (got \"[::1]8080\")"),
        ("[::1", "LISTEN: expected host:port, [v6]:port or unix:/path (got \"[::1\")"),
        ("127.0.0.1:65536", "LISTEN: port must be a number from 0 to 65535 (got \"127.0.0.1:65536\")"),
        ("127.0.0.1:", "LISTEN: port must be a number from 0 to 65535 (got \"127.0.0.1:\")"),
        ("127.0.0.1:-1", "LISTEN: port must be a number from 0 to 65535 (got \"127.0.0.1:-1\")"),
        ("127.0.0.1:http", "LISTEN: port must be a number from 0 to 65535 (got \"127.0.0.1:http\")"),
        ("[::1]:123456", "LISTEN: port must be a number from 0 to 65535 (got \"[::1]:123456\")"),
        ("example.com:80", "LISTEN: host must be an IP address or localhost (names are not resolved) (got \"example.com:80\")"),
        ("127.0.0.01:80", "LISTEN: host must be an IP address or localhost (names are not resolved) (got \"127.0.0.01:80\")"),
        ("[127.0.0.1]:80", "LISTEN: host must be an IP address or localhost (names are not resolved) (got \"[127.0.0.1]:80\")"),
        ("[fe80::1%eth0]:80", "LISTEN: host must be an IP address or localhost (names are not resolved) (got \"[fe80::1%eth0]:80\")"),
        ("::1:8080", "LISTEN: an IPv6 host needs brackets, like [::1]:8080 (got \"::1:8080\")"),
        ("unix:relaydeck.sock", "LISTEN: a unix socket path must be absolute, like unix:/run/relaydeck/http.sock (got \"unix:relaydeck.sock\")"),
    ])
    func refusesMalformedValues(text: String, message: String) {
        #expect(loadError(["LISTEN": text])?.description == message)
    }

    @Test func refusesAUnixSocketPathLongerThanSunPath() {
        let error = loadError(["LISTEN": "unix:/" + String(repeating: "a", count: 107)])
        #expect(error?.variable == "LISTEN")
        #expect(error?.message.hasPrefix("a unix socket path can have at most 107 bytes (got \"unix:/aaaa") == true)
    }
}
