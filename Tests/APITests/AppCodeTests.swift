@testable import API
import Clock
import Crypto
import HTTP
import JSON
import Relaydeck
import Testing

/// `app-integrity.md#app-code`: with a TOTP secret set, account creation and every request
/// with an account token carry `X-App-Code`; API keys do not.
@Suite struct AppCodeTests {
    private static let secret = Array("12345678901234567890".utf8)
    private static let invalid = errorBody("app_code_invalid", "The app code is missing or wrong.")

    private func harness() throws -> APIHarness {
        var configuration = APIConfiguration()
        configuration.appCodeSecret = Self.secret
        return try APIHarness(configuration: configuration)
    }

    private func code(_ api: APIHarness, offsetSeconds: Int64 = 0) -> (String, String) {
        ("X-App-Code", TOTP.code(secret: Self.secret, unixTime: api.clock.wallMillis / 1000 + offsetSeconds))
    }

    /// Eight digits that are not the code of the current, previous or next step.
    private func wrongCode(_ api: APIHarness) -> (String, String) {
        let now = api.clock.wallMillis / 1000
        let valid = Set([-30, 0, 30].map { TOTP.code(secret: Self.secret, unixTime: now + $0) })
        let wrong = ["00000000", "11111111", "22222222"].first { !valid.contains($0) } ?? "33333333"
        return ("X-App-Code", wrong)
    }

    @Test func creatingAnAccountNeedsTheCode() throws {
        let api = try harness()
        let missing = try api.send("POST", "/v1/accounts", body: "{}")
        #expect(missing.status == 401)
        #expect(missing.text == Self.invalid)
        #expect(try api.send("POST", "/v1/accounts", [wrongCode(api)], body: "{}").text == Self.invalid)
        #expect(try api.send("POST", "/v1/accounts", [("X-App-Code", "1234567")], body: "{}").text == Self.invalid)
        #expect(try api.send("POST", "/v1/accounts", [("X-App-Code", "abcdefgh")], body: "{}").text == Self.invalid)
        #expect(try api.send("POST", "/v1/accounts", [code(api)], body: "{}").status == 201)
    }

    @Test func anAccountTokenNeedsTheCodeOfTheWallClockTime() throws {
        let api = try harness()
        let (id, token) = try api.createAccount([code(api)])
        let missing = try api.send("GET", "/v1/account", [bearer(token)])
        #expect(missing.status == 401)
        #expect(missing.headers == ["Content-Type: application/json"])
        #expect(missing.text == Self.invalid)
        #expect(try api.send("GET", "/v1/account", [bearer(token), wrongCode(api)]).text == Self.invalid)
        let answer = try api.send("GET", "/v1/account", [bearer(token), code(api)])
        #expect(answer.status == 200)
        #expect(answer.text == accountJSON(id: id))
    }

    /// One step of clock difference either way passes; two do not.
    @Test func theCodeOfTheNeighbouringStepsIsAccepted() throws {
        let api = try harness()
        let (_, token) = try api.createAccount([code(api)])
        #expect(try api.send("GET", "/v1/account", [bearer(token), code(api, offsetSeconds: -30)]).status == 200)
        #expect(try api.send("GET", "/v1/account", [bearer(token), code(api, offsetSeconds: 30)]).status == 200)
        #expect(try api.send("GET", "/v1/account", [bearer(token), code(api, offsetSeconds: -60)]).status == 401)
        #expect(try api.send("GET", "/v1/account", [bearer(token), code(api, offsetSeconds: 60)]).status == 401)
        // The clock moves on: a code from ten minutes ago is refused.
        let old = code(api)
        api.clock.advance(millis: 600_000)
        #expect(try api.send("GET", "/v1/account", [bearer(token), old]).text == Self.invalid)
        #expect(try api.send("GET", "/v1/account", [bearer(token), code(api)]).status == 200)
    }

    @Test func everyAccountRouteChecksTheCode() throws {
        let api = try harness()
        let (_, token) = try api.createAccount([code(api)])
        for (method, path, body) in [("GET", "/v1/keys", nil), ("POST", "/v1/keys", #"{"label":"x"}"#),
                                     ("PATCH", "/v1/account", "{}"), ("DELETE", "/v1/account", nil)] as [(String, String, String?)] {
            #expect(try api.send(method, path, [bearer(token)], body: body).text == Self.invalid, "\(method) \(path)")
        }
        #expect(try api.send("GET", "/v1/keys", [bearer(token), code(api)]).status == 200)
    }

    @Test func apiKeysDoNotNeedTheCode() throws {
        let api = try harness()
        let (_, token) = try api.createAccount([code(api)])
        let answer = try api.send("POST", "/v1/keys", [bearer(token), code(api)], body: #"{"label": "Cursor"}"#)
        let secret = try #require(answer.json()["secret"]?.stringValue)
        // Authenticated without a code: only the route's access refuses it.
        let keyAnswer = try api.send("GET", "/v1/keys", [apiKey(secret)])
        #expect(keyAnswer.status == 403)
        #expect(keyAnswer.text == errorBody("forbidden", "An API key cannot use this route."))
    }

    @Test func withoutASecretNoCodeIsAsked() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 200)
        #expect(try api.send("GET", "/v1/account", [bearer(token), ("X-App-Code", "garbage")]).status == 200)
    }
}
