@testable import API
import Clock
import Crypto
import HTTP
import Relaydeck
import Testing

/// The record of a request: who sent it even when a later check refused it, the route
/// pattern, the status, the code, the fields of a 422.
@Suite struct RequestRecordTests {
    @Test func anUnknownPathHasNoRouteAndNoPrincipal() throws {
        let api = try APIHarness()
        let record = try api.send("GET", "/v1/nothing").record
        #expect(record.route == nil)
        #expect(record.principal == nil)
        #expect(record.status == 404)
        #expect(record.code == "not_found")
        #expect(record.action == nil)
    }

    /// What the activity log reads: a REST request's surface, no MCP client, the wall time it
    /// came, and an action an MCP endpoint can name itself.
    @Test func aRestRequestIsOfTheRestSurfaceWithNoClient() throws {
        let api = try APIHarness()
        api.clock.wallMillis = 1_760_112_300_900
        var record = try api.send("GET", "/v1/keys").record
        #expect(record.surface == .rest)
        #expect(record.client == nil)
        #expect(record.receivedAtWallMillis == 1_760_112_300_900)
        #expect(record.action == "GET /v1/keys")
        record.surface = .mcp
        record.namedAction = "update_task"
        #expect(record.action == "update_task")
    }

    @Test func aWrongCredentialHasTheRouteButNoPrincipal() throws {
        let api = try APIHarness()
        let record = try api.send("PATCH", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav", [bearer("mca_wrong")], body: "{}").record
        #expect(record.route == "/v1/keys/{key_id}")
        #expect(record.action == "PATCH /v1/keys/{key_id}")
        #expect(record.principal == nil)
        #expect((record.status, record.code, record.message) == (401, "unauthorized", "The credential is missing or wrong."))
    }

    @Test func aFailedAppCodeStillNamesTheAccount() throws {
        let secret = Array("12345678901234567890".utf8)
        var configuration = APIConfiguration()
        configuration.appCodeSecret = secret
        let api = try APIHarness(configuration: configuration)
        let code = TOTP.code(secret: secret, unixTime: api.clock.wallMillis / 1000)
        let (id, token) = try api.createAccount([("X-App-Code", code)])
        let record = try api.send("GET", "/v1/account", [bearer(token)]).record
        #expect(record.principal == .account(accountID: id))
        #expect((record.status, record.code) == (401, "app_code_invalid"))
    }

    @Test func aKeyOnAnAccountRouteIsRecordedWithItsHost() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token)
        let record = try api.send("GET", "/v1/keys", [apiKey(key.secret), ("X-Relaydeck-Host", " studio-mac ")]).record
        guard case .key(let use)? = record.principal else {
            Issue.record("no key principal")
            return
        }
        #expect(use.keyID == key.id)
        #expect(record.host == "studio-mac")
        #expect((record.status, record.code) == (403, "forbidden"))
    }

    @Test func aRateLimitedRequestIsStillTheKeys() throws {
        var configuration = APIConfiguration()
        configuration.requestsPerMinute = 1
        let api = try APIHarness(configuration: configuration)
        let (id, token) = try api.createAccount()
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 200)
        let record = try api.send("GET", "/v1/account", [bearer(token)]).record
        #expect(record.principal == .account(accountID: id))
        #expect((record.status, record.code) == (429, "rate_limited"))
    }

    @Test func aValidationFailureListsItsFieldNamesNotTheirValues() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let record = try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "", "secret": "mck_x"}"#).record
        #expect((record.status, record.code) == (422, "validation_failed"))
        #expect(record.fields == ["label", "secret"])
        #expect(record.message == "Invalid fields: label, secret.")
    }

    @Test func aSuccessHasNoCode() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let record = try api.send("GET", "/v1/keys", [bearer(token)]).record
        #expect((record.status, record.code, record.message, record.fields) == (200, nil, nil, []))
        #expect(record.ending == .answered)
        #expect(!record.parked)
    }
}
