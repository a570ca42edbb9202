@testable import API
import HTTP
import Testing

/// Reading the session cookie among others, the origin and RP ID of a request, and the
/// `If-None-Match` comparison of the console's files.
@Suite struct WebCookieTests {
    func head(_ fields: [(String, String)]) throws -> HTTPRequestHead {
        var text = "GET /v1/account HTTP/1.1\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return try HTTPRequestHead(parsing: Array((text + "\r\n").utf8))
    }

    @Test func theSessionCookieIsFoundAmongOthersByItsExactName() throws {
        let fields = [("Host", "h"), ("Cookie", "a=1;relaydeck_session=mcs_x ; __Host-relaydeck_session=mcs_y")]
        #expect(WebCookie.secrets(in: try head(fields), secure: false) == ["mcs_x"])
        #expect(WebCookie.secrets(in: try head(fields), secure: true) == ["mcs_y"])
        #expect(WebCookie.secrets(in: try head([("Host", "h"), ("Cookie", "xrelaydeck_session=mcs_x")]), secure: false) == [])
        #expect(WebCookie.secrets(in: try head([("Host", "h")]), secure: false) == [])
    }

    /// Several cookies of the name (one set by a page on another port of `localhost`) are
    /// all candidates, in order, across `Cookie` headers, up to `maxTried`.
    @Test func everySessionCookieOfTheNameIsACandidateUpToABound() throws {
        let two = [("Host", "h"), ("Cookie", "relaydeck_session=mcs_stray; a=1"), ("Cookie", "relaydeck_session=mcs_mine")]
        #expect(WebCookie.secrets(in: try head(two), secure: false) == ["mcs_stray", "mcs_mine"])
        let many = (0..<10).map { "relaydeck_session=mcs_\($0)" }.joined(separator: "; ")
        #expect(WebCookie.secrets(in: try head([("Host", "h"), ("Cookie", many)]), secure: false) == ["mcs_0", "mcs_1", "mcs_2", "mcs_3"])
    }

    @Test func theOriginAndRelyingPartyComeFromPublicURLElseFromHost() throws {
        let fromPublic = try #require(WebOrigin(try head([("Host", "127.0.0.1:8080")]), publicOrigin: "https://tasks.example.com:8443", servesHTTPS: false))
        #expect(fromPublic.origin == "https://tasks.example.com:8443" && fromPublic.relyingPartyID == "tasks.example.com" && fromPublic.secure)
        let fromHost = try #require(WebOrigin(try head([("Host", "LocalHost:8080")]), publicOrigin: nil, servesHTTPS: false))
        #expect(fromHost.origin == "http://localhost:8080" && fromHost.relyingPartyID == "localhost" && !fromHost.secure)
        let v6 = try #require(WebOrigin(try head([("Host", "[::1]:8080")]), publicOrigin: nil, servesHTTPS: false))
        #expect(v6.relyingPartyID == "[::1]")
        #expect(WebOrigin(try head([("Host", "user@evil")]), publicOrigin: nil, servesHTTPS: false) == nil)
    }

    @Test func withoutPublicURLAServerSpeakingHTTPSHasAnHTTPSOriginAndASecureCookie() throws {
        let origin = try #require(WebOrigin(try head([("Host", "tasks.lan:8443")]), publicOrigin: nil, servesHTTPS: true))
        #expect(origin.origin == "https://tasks.lan:8443" && origin.relyingPartyID == "tasks.lan" && origin.secure)
    }

    private func configuration(publicOrigin: String? = nil, https: Bool = false) -> APIConfiguration {
        var configuration = APIConfiguration()
        configuration.publicOrigin = publicOrigin
        configuration.servesHTTPS = https
        return configuration
    }

    @Test func aChangeNeedsExactlyOneOwnOriginAndSignInAcceptsNone() throws {
        let plain = configuration()
        #expect(throws: Never.self) { try OwnOrigin.require(try head([("Host", "h:1"), ("Origin", "http://h:1")]), plain) }
        #expect(throws: (any Error).self) { try OwnOrigin.require(try head([("Host", "h:1")]), plain) }
        #expect(throws: (any Error).self) {
            try OwnOrigin.require(try head([("Host", "h:1"), ("Origin", "http://h:1"), ("Origin", "http://h:1")]), plain)
        }
        #expect(throws: (any Error).self) { try OwnOrigin.require(try head([("Host", "h:1"), ("Origin", "http://h:1")]), configuration(publicOrigin: "https://h")) }
        #expect(throws: Never.self) { try OwnOrigin.checkIfPresent(try head([("Host", "h:1")]), plain) }
        #expect(throws: (any Error).self) { try OwnOrigin.checkIfPresent(try head([("Host", "h:1"), ("Origin", "http://e")]), plain) }
    }

    /// The scheme of the `Origin` is the one the server speaks: `https://127.0.0.1:PORT` is not
    /// the origin of a plain-HTTP server, nor `http://` that of an HTTPS one.
    @Test func theOriginsSchemeMustBeTheOneTheServerSpeaks() throws {
        let fields = [("Host", "127.0.0.1:8080"), ("Origin", "https://127.0.0.1:8080")]
        #expect(throws: (any Error).self) { try OwnOrigin.require(try head(fields), configuration()) }
        #expect(throws: Never.self) { try OwnOrigin.require(try head(fields), configuration(https: true)) }
        let http = [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080")]
        #expect(throws: (any Error).self) { try OwnOrigin.require(try head(http), configuration(https: true)) }
    }

    /// A Raspberry Pi is reached at home by its mDNS name (`raspberrypi.local`).
    @Test func aMachinesNamesAreItsHostNameItsFirstLabelAndThatLabelInDotLocal() {
        #expect(OwnOrigin.names(ofHost: "RaspberryPi") == ["raspberrypi", "raspberrypi.local"])
        #expect(OwnOrigin.names(ofHost: "build1.lab.example") == ["build1.lab.example", "build1", "build1.local"])
        #expect(OwnOrigin.names(ofHost: "").isEmpty)
    }

    @Test func theHostMustBeALoopbackNameAnAddressOrThisMachinesName() {
        let machine = OwnOrigin.names(ofHost: "build1.lab.example")
        for host in ["localhost", "localhost:8080", "app.localhost:1", "LocalHost.", "127.0.0.1:8080", "127.1.2.3", "[::1]:8080",
                     "[fe80::1]", "10.0.0.7:8080", "build1:8080", "build1.lab.example", "build1.local:8080"] {
            #expect(OwnOrigin.isOwn(host: host, publicHost: nil, machineNames: machine), "\(host)")
        }
        for host in ["evil.example:8080", "localhost.evil.example", "build1.evil.example", "127.0.0.1.nip.io", "", ":8080",
                     "other.local", "build1.lab.local",
                     "localhost:80x", "[::1", "[not-v6]:80", "user@localhost"] {
            #expect(!OwnOrigin.isOwn(host: host, publicHost: nil, machineNames: machine), "\(host)")
        }
        #expect(OwnOrigin.isOwn(host: "Tasks.Example.com", publicHost: "tasks.example.com", machineNames: []))
        #expect(OwnOrigin.isOwn(host: "tasks.example.com:443", publicHost: "tasks.example.com", machineNames: []))
        #expect(OwnOrigin.hostName(ofOrigin: "https://tasks.example.com:8443") == "tasks.example.com")
        #expect(OwnOrigin.hostName(ofOrigin: "http://[::1]:8080") == "[::1]")
    }

    /// The byte-level check of an address is a shortcut: whatever it takes, the whole rule
    /// takes too, and what it leaves goes to the whole rule.
    @Test func anAddressReadFromTheBytesIsOneTheWholeRuleAcceptsToo() {
        let taken = ["127.0.0.1:8080", "127.0.0.1", "10.0.0.7:1", "255.255.255.255:65535", "0.0.0.0", "192.168.1.20:443"]
        let left = ["127.0.0.1:", "127.0.0.1.", "256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1..2.3", ".1.2.3", "1.2.3.4:123456",
                    "1.2.3.4:8a", "1.2.3.4:80:80", "localhost:8080", "[::1]:8080", "", ":8080", "１.2.3.4", "1.2.3.4 "]
        for host in taken {
            #expect(OwnOrigin.isIPv4Authority(host), "\(host)")
            #expect(OwnOrigin.isOwnByName(host: host, publicHost: nil, machineNames: []), "\(host)")
        }
        for host in left {
            #expect(!OwnOrigin.isIPv4Authority(host), "\(host)")
            #expect(OwnOrigin.isOwn(host: host, publicHost: nil, machineNames: [])
                    == OwnOrigin.isOwnByName(host: host, publicHost: nil, machineNames: []), "\(host)")
        }
    }

    @Test func ifNoneMatchTakesAListWeakTagsAndTheStar() {
        #expect(WebFiles.matches(#""a", W/"b""#, #""b""#))
        #expect(WebFiles.matches("*", #""b""#))
        #expect(!WebFiles.matches(#""a""#, #""b""#))
    }
}
