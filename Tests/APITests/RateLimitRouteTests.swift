@testable import API
import EventLoop
import HTTP
import JSON
import Relaydeck
import Testing

/// The handler's two limits: per credential on every authenticated request, and account
/// creations per client address.
@Suite struct RateLimitRouteTests {
    private func configuration(requests: Int = 600, accounts: Int = 20, proxies: [String] = []) -> APIConfiguration {
        var configuration = APIConfiguration()
        configuration.requestsPerMinute = requests
        configuration.accountsPerHour = accounts
        configuration.trustedProxies = proxies.compactMap(CIDR.init)
        return configuration
    }

    private func peer(_ text: String) throws -> PeerAddress {
        .ip(bytes: try #require(IPAddress(text)).bytes, port: 40_000)
    }

    @Test func theFourthRequestOfACredentialIsLimitedAtThree() throws {
        let api = try APIHarness(configuration: configuration(requests: 3))
        let (_, token) = try api.createAccount()
        let (_, other) = try api.createAccount()
        for _ in 0..<3 {
            #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 200)
        }
        let limited = try api.send("GET", "/v1/account", [bearer(token)])
        #expect(limited.status == 429)
        #expect(limited.headers == ["Content-Type: application/json", "Retry-After: 20"])
        #expect(limited.text == errorBody("rate_limited", "Too many requests. Try again in 20 seconds."))
        // Another credential has its own allowance.
        #expect(try api.send("GET", "/v1/account", [bearer(other)]).status == 200)

        api.advanceLoop(seconds: 19)
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).header("Retry-After") == "1")
        api.advanceLoop(seconds: 1)
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 200)
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 429)
    }

    /// Every route and method of one credential shares the allowance, writes included.
    @Test func theLimitCountsEveryAuthenticatedRequest() throws {
        let api = try APIHarness(configuration: configuration(requests: 3))
        let (_, token) = try api.createAccount()
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).status == 200)
        #expect(try api.send("PATCH", "/v1/account", [bearer(token)], body: "{}").status == 200)
        #expect(try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": 1}"#).status == 422)
        #expect(try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "x"}"#).status == 429)
        // The limited request did nothing.
        api.advanceLoop(seconds: 60)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text == #"{"keys":[]}"#)
    }

    /// api-behaviour.md checks 403 before 429: a key on an account route stays forbidden
    /// however often it comes, and its requests do not use the account token's allowance.
    @Test func aForbiddenKeyIsForbiddenBeforeItIsLimited() throws {
        let api = try APIHarness(configuration: configuration(requests: 3))
        let (_, token) = try api.createAccount()
        let (_, secret) = try api.createKey(token: token)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).status == 200)
        for _ in 0..<5 {
            let answer = try api.send("GET", "/v1/account", [apiKey(secret)])
            #expect(answer.status == 403)
            #expect(answer.text == errorBody("forbidden", "An API key cannot use this route."))
        }
        // The token's third request (creating the key was its first) passes, its fourth not.
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).status == 200)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).status == 429)
    }

    /// Unauthenticated requests use no credential's allowance.
    @Test func refusedCredentialsAreNotCounted() throws {
        let api = try APIHarness(configuration: configuration(requests: 1))
        let (_, token) = try api.createAccount()
        for _ in 0..<5 {
            #expect(try api.send("GET", "/v1/account", [bearer("mca_" + String(repeating: "x", count: 43))]).status == 401)
            #expect(try api.send("GET", "/health").status == 200)
        }
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 200)
    }

    @Test func accountCreationIsLimitedPerClientAddress() throws {
        let api = try APIHarness(configuration: configuration(accounts: 2))
        let first = try peer("198.51.100.7")
        let second = try peer("198.51.100.8")
        #expect(try api.send("POST", "/v1/accounts", peer: first).status == 201)
        #expect(try api.send("POST", "/v1/accounts", peer: first).status == 201)
        let limited = try api.send("POST", "/v1/accounts", peer: first)
        #expect(limited.status == 429)
        #expect(limited.headers == ["Content-Type: application/json", "Retry-After: 1800"])
        #expect(limited.text == errorBody("rate_limited", "Too many requests. Try again in 1800 seconds."))
        #expect(try api.send("POST", "/v1/accounts", peer: second).status == 201)

        api.advanceLoop(seconds: 1_800)
        #expect(try api.send("POST", "/v1/accounts", peer: first).status == 201)
        #expect(try api.send("POST", "/v1/accounts", peer: first).status == 429)
    }

    /// A refused body does not use up a creation.
    @Test func anInvalidCreationIsNotCounted() throws {
        let api = try APIHarness(configuration: configuration(accounts: 1))
        #expect(try api.send("POST", "/v1/accounts", body: #"{"x": 1}"#).status == 422)
        #expect(try api.send("POST", "/v1/accounts", body: "{").status == 400)
        #expect(try api.send("POST", "/v1/accounts").status == 201)
        #expect(try api.send("POST", "/v1/accounts").status == 429)
    }

    @Test func ipv6ClientsShareTheLimitOfTheirSixtyFour() throws {
        let api = try APIHarness(configuration: configuration(accounts: 1))
        #expect(try api.send("POST", "/v1/accounts", peer: try peer("2001:db8::1")).status == 201)
        #expect(try api.send("POST", "/v1/accounts", peer: try peer("2001:db8::2")).status == 429)
        #expect(try api.send("POST", "/v1/accounts", peer: try peer("2001:db8:0:1::1")).status == 201)
    }

    @Test func behindATrustedProxyTheForwardedClientIsCounted() throws {
        let api = try APIHarness(configuration: configuration(accounts: 1, proxies: ["10.0.0.0/8"]))
        let proxy = try peer("10.0.0.2")
        #expect(try api.send("POST", "/v1/accounts", [("X-Forwarded-For", "198.51.100.1")], peer: proxy).status == 201)
        #expect(try api.send("POST", "/v1/accounts", [("X-Forwarded-For", "198.51.100.2")], peer: proxy).status == 201)
        #expect(try api.send("POST", "/v1/accounts", [("X-Forwarded-For", "198.51.100.1")], peer: proxy).status == 429)
        #expect(try api.send("POST", "/v1/accounts", [("X-Forwarded-For", "203.0.113.3, 198.51.100.1")], peer: proxy).status == 429)
        // An untrusted peer's header is ignored: both count for the peer.
        let direct = try peer("203.0.113.50")
        #expect(try api.send("POST", "/v1/accounts", [("X-Forwarded-For", "198.51.100.3")], peer: direct).status == 201)
        #expect(try api.send("POST", "/v1/accounts", [("X-Forwarded-For", "198.51.100.4")], peer: direct).status == 429)
    }
}
