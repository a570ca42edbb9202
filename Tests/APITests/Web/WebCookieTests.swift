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
        #expect(WebCookie.secret(in: try head(fields), secure: false) == "mcs_x")
        #expect(WebCookie.secret(in: try head(fields), secure: true) == "mcs_y")
        #expect(WebCookie.secret(in: try head([("Host", "h"), ("Cookie", "xrelaydeck_session=mcs_x")]), secure: false) == nil)
        #expect(WebCookie.secret(in: try head([("Host", "h")]), secure: false) == nil)
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

    @Test func aChangeNeedsExactlyOneOwnOriginAndSignInAcceptsNone() throws {
        #expect(throws: Never.self) { try OwnOrigin.require(try head([("Host", "h:1"), ("Origin", "http://h:1")]), publicOrigin: nil) }
        #expect(throws: (any Error).self) { try OwnOrigin.require(try head([("Host", "h:1")]), publicOrigin: nil) }
        #expect(throws: (any Error).self) {
            try OwnOrigin.require(try head([("Host", "h:1"), ("Origin", "http://h:1"), ("Origin", "http://h:1")]), publicOrigin: nil)
        }
        #expect(throws: (any Error).self) { try OwnOrigin.require(try head([("Host", "h:1"), ("Origin", "http://h:1")]), publicOrigin: "https://h") }
        #expect(throws: Never.self) { try OwnOrigin.checkIfPresent(try head([("Host", "h:1")]), publicOrigin: nil) }
        #expect(throws: (any Error).self) { try OwnOrigin.checkIfPresent(try head([("Host", "h:1"), ("Origin", "http://e")]), publicOrigin: nil) }
    }

    @Test func ifNoneMatchTakesAListWeakTagsAndTheStar() {
        #expect(WebFiles.matches(#""a", W/"b""#, #""b""#))
        #expect(WebFiles.matches("*", #""b""#))
        #expect(!WebFiles.matches(#""a""#, #""b""#))
    }
}
