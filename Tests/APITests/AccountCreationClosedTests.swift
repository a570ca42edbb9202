@testable import API
import HTTP
import JSON
import Relaydeck
import SQLite
import Testing

/// `ACCOUNT_CREATION=closed`: no account is made on request, and the routes that serve only
/// that (`POST /v1/accounts`, `POST /v1/attest/challenge`) answer `403` before any other
/// check; accounts the operator made work as before.
@Suite struct AccountCreationClosedTests {
    static let closed = errorBody("forbidden", "Accounts on this server are made by its operator (relaydeckd account create), not on request.")

    static func closedAPI(appCode: Bool = false) throws -> APIHarness {
        var configuration = APIConfiguration()
        configuration.accountCreationOpen = false
        if appCode { configuration.appCodeSecret = Array("12345678901234567890".utf8) }
        return try APIHarness(configuration: configuration)
    }

    @Test func accountCreationAndChallengesAreForbiddenWhileClosed() async throws {
        let api = try Self.closedAPI()
        for body in ["{}", "", #"{"attestation": {"key_id": "x"}}"#, #"{"unknown": 1}"#] {
            let answer = try api.send("POST", "/v1/accounts", body: body)
            #expect(answer.status == 403 && answer.text == Self.closed, "\(body)")
            #expect(answer.headers.contains("Content-Type: application/json"))
        }
        let challenge = try api.send("POST", "/v1/attest/challenge")
        #expect(challenge.status == 403 && challenge.text == Self.closed)
        // Nothing was made: the first account the operator makes is the only one.
        _ = try await api.services.accounts.create()
        #expect(try api.store.read { db in
            let statement = try db.prepare("SELECT count(*) FROM accounts")
            _ = try statement.step()
            return statement.int(0)
        } == 1)
    }

    @Test func closedComesBeforeTheAppCodeAndTheRateLimit() throws {
        let api = try Self.closedAPI(appCode: true)
        for _ in 0..<30 {
            #expect(try api.send("POST", "/v1/accounts", body: "{}").text == Self.closed)
            #expect(try api.send("POST", "/v1/attest/challenge").text == Self.closed)
        }
    }

    @Test func anAccountTheOperatorMadeWorksWhileClosed() async throws {
        let api = try Self.closedAPI()
        let (account, token) = try await api.services.accounts.create()
        let answer = try api.send("GET", "/v1/account", [bearer(token.text)])
        #expect(answer.status == 200)
        #expect(try answer.json()["id"]?.stringValue == account.id)
        #expect(try api.send("POST", "/v1/keys", [bearer(token.text)], body: #"{"label": "Claude Code"}"#).status == 201)
    }

    @Test func openIsTheDefault() throws {
        let api = try APIHarness()
        #expect(try api.send("POST", "/v1/accounts", body: "{}").status == 201)
        #expect(try api.send("POST", "/v1/attest/challenge").status == 200)
    }
}
