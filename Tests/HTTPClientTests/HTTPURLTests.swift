import Testing
@testable import HTTPClient

@Suite struct HTTPURLTests {
    @Test func aURLIsTakenApartIntoSchemeHostPortAndTarget() throws {
        let url = try HTTPURL("HTTPS://Client.Example.COM:8443/oauth/metadata.json?v=2#top")
        #expect(url.scheme == .https && url.host == "client.example.com" && url.port == 8443)
        #expect(url.target == "/oauth/metadata.json?v=2")
        #expect(url.authority == "client.example.com:8443")
        #expect(url.origin == "https://client.example.com:8443")
        #expect(url.description == "https://client.example.com:8443/oauth/metadata.json?v=2")

        let plain = try HTTPURL("http://127.0.0.1")
        #expect(plain.port == 80 && plain.target == "/" && plain.authority == "127.0.0.1")
        let query = try HTTPURL("https://push.example?x=1")
        #expect(query.target == "/?x=1" && query.port == 443)
        let v6 = try HTTPURL("https://[2001:DB8::1]:444/p")
        #expect(v6.host == "2001:db8::1" && v6.port == 444 && v6.authority == "[2001:db8::1]:444")
        #expect(try HTTPURL("https://[::1]/").authority == "[::1]")
    }

    @Test(arguments: [
        ("ftp://example.com/", "a URL that is not http: or https:"),
        ("example.com/x", "a URL that is not http: or https:"),
        ("https:/example.com", "a URL without an authority (//host)"),
        ("https://user:pw@example.com/", "a URL with a user name or password"),
        ("https://example.com:0/", "a URL whose port is not 1 to 65535"),
        ("https://example.com:65536/", "a URL whose port is not 1 to 65535"),
        ("https://example.com:/", "a URL whose port is not 1 to 65535"),
        ("https://example.com:+80/", "a URL whose port is not 1 to 65535"),
        ("https://[::1/", "a URL with an unclosed [ in its host"),
        ("https://[example.com]/", "a URL whose bracketed host is not an IPv6 address"),
        ("https://[::1]x/", "a URL with text after its IPv6 host"),
        ("https:///path", "a URL without a host"),
        ("https://exa%6dple.com/", "a URL whose host is neither a DNS name nor an IP address"),
        ("https://exa mple.com/", "a URL with a byte that is not visible ASCII"),
        ("https://example.com/\r\nX: y", "a URL with a byte that is not visible ASCII"),
        ("https://example.com/é", "a URL with a byte that is not visible ASCII"),
    ])
    func aURLThisClientWillNotSendToIsRefusedWithTheReason(_ text: String, _ reason: String) {
        #expect(throws: HTTPURL.Refusal(reason: reason)) { try HTTPURL(text) }
    }

    @Test func aURLOverTheBoundIsRefused() {
        let long = "https://example.com/" + String(repeating: "a", count: HTTPURL.maxBytes)
        #expect(throws: HTTPURL.Refusal(reason: "a URL longer than 4096 bytes")) { try HTTPURL(long) }
    }

    @Test func originsDifferBySchemeHostOrPort() throws {
        let base = try HTTPURL("https://a.example/x")
        #expect(base.isSameOrigin(as: try HTTPURL("https://A.example:443/y?z")))
        #expect(!base.isSameOrigin(as: try HTTPURL("http://a.example/x")))
        #expect(!base.isSameOrigin(as: try HTTPURL("https://b.example/x")))
        #expect(!base.isSameOrigin(as: try HTTPURL("https://a.example:8443/x")))
    }

    /// RFC 3986 section 5.4, its normal and abnormal examples, against its base URL; the
    /// fragment is dropped, as this client never sends one.
    @Test(arguments: [
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g/"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"),
        ("g#s", "http://a/b/c/g"), ("g?y#s", "http://a/b/c/g?y"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"),
        ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"),
        ("../../", "http://a/"), ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g"), ("g#s/../x", "http://a/b/c/g"),
        ("https://other.example:8443/a/../b?c", "https://other.example:8443/b?c"),
    ])
    func aReferenceIsResolvedAsRFC3986Says(_ reference: String, _ expected: String) throws {
        let base = try HTTPURL("http://a/b/c/d;p?q")
        #expect(try base.resolving(reference).description == expected)
    }

    @Test func aReferenceToAnotherSchemeOrWithBytesThatCannotBeSentIsRefused() throws {
        let base = try HTTPURL("https://a.example/b")
        #expect(throws: HTTPURL.Refusal(reason: "a URL that is not http: or https:")) { try base.resolving("javascript:alert(1)") }
        #expect(throws: HTTPURL.Refusal(reason: "a URL that is not http: or https:")) { try base.resolving("g:h") }
        #expect(throws: HTTPURL.Refusal(reason: "a reference with a byte that is not visible ASCII")) { try base.resolving("/a b") }
        #expect(throws: HTTPURL.Refusal(reason: "a URL with a user name or password")) { try base.resolving("//evil@a.example/") }
    }
}
