import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// Every request with a valid API key counts as a use of it, whatever the answer.
@Suite struct KeyUseRouteTests {
    private func onlyKey(_ api: APIHarness, _ token: String) throws -> JSON {
        try #require(api.send("GET", "/v1/keys", [bearer(token)]).json()["keys"]?.arrayValue?.first)
    }

    @Test func aRefusedRequestStillSetsLastUsedAtAndTheHost() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token)
        api.clock.advance(millis: 2_250)
        #expect(try api.send("GET", "/v1/account", [apiKey(key.secret), ("X-Relaydeck-Host", " studio-mac ")]).status == 403)
        let text = try api.send("GET", "/v1/keys", [bearer(token)]).text
        #expect(text == #"{"keys":[\#(keyJSON(id: key.id, label: "Cursor", secret: key.secret, lastUsedAt: "1760000002.25", lastHost: #""studio-mac""#))]}"#)
    }

    @Test func lastUsedAtMovesAtMostOnceAMinute() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token)
        _ = try api.send("GET", "/v1/keys", [apiKey(key.secret)])
        #expect(try onlyKey(api, token)["last_used_at"]?.doubleValue == 1_760_000_000.0)
        api.clock.advance(millis: 59_999)
        _ = try api.send("GET", "/v1/keys", [apiKey(key.secret)])
        #expect(try onlyKey(api, token)["last_used_at"]?.doubleValue == 1_760_000_000.0)
        api.clock.advance(millis: 1)
        _ = try api.send("GET", "/v1/keys", [apiKey(key.secret)])
        #expect(try onlyKey(api, token)["last_used_at"]?.doubleValue == 1_760_000_060.0)
    }

    @Test func anInvalidHostIsIgnoredAndNoHeaderKeepsTheLastOne() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token)
        _ = try api.send("GET", "/v1/keys", [apiKey(key.secret), ("X-Relaydeck-Host", "studio-mac")])
        #expect(try onlyKey(api, token)["last_host"] == "studio-mac")
        for invalid in [String(repeating: "h", count: 65), "in\tside", "mäc", ""] {
            let answer = try api.send("GET", "/v1/keys", [apiKey(key.secret), ("X-Relaydeck-Host", invalid)])
            #expect(answer.status == 403)
            #expect(try onlyKey(api, token)["last_host"] == "studio-mac")
        }
        _ = try api.send("GET", "/v1/keys", [apiKey(key.secret)])
        #expect(try onlyKey(api, token)["last_host"] == "studio-mac")
        _ = try api.send("GET", "/v1/keys", [bearer(key.secret), ("X-Relaydeck-Host", "build-box")])
        #expect(try onlyKey(api, token)["last_host"] == "build-box")
    }

    /// An account token's requests are not key uses, and its host header is ignored.
    @Test func anAccountTokenIsNotAKeyUse() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token)
        _ = try api.send("GET", "/v1/keys", [bearer(token), ("X-Relaydeck-Host", "phone")])
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text
            == #"{"keys":[\#(keyJSON(id: key.id, label: "Cursor", secret: key.secret))]}"#)
    }
}
