import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// `rest-api.md#accounts`
@Suite struct AccountRouteTests {
    @Test func createAnswersTheAccountAndItsToken() throws {
        let api = try APIHarness()
        api.clock.wallMillis = 1_760_112_000_412
        let answer = try api.send("POST", "/v1/accounts", body: "{}")
        #expect(answer.status == 201)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        #expect(answer.pattern == "/v1/accounts")
        let json = try answer.json()
        let id = try #require(json["account"]?["id"]?.stringValue)
        let token = try #require(json["token"]?.stringValue)
        #expect(answer.text == #"{"account":\#(accountJSON(id: id, createdAt: "1760112000.412")),"token":"\#(token)"}"#)
        #expect(Identifier.isWellFormed(Substring(id), prefix: "acc_"))
        #expect(token.hasPrefix("mca_") && token.utf8.count == 47)
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).text == accountJSON(id: id, createdAt: "1760112000.412"))
    }

    @Test func createTakesAnEmptyBodyNoBodyAndAnIgnoredAttestation() throws {
        let api = try APIHarness()
        #expect(try api.send("POST", "/v1/accounts").status == 201)
        #expect(try api.send("POST", "/v1/accounts", body: "").status == 201)
        #expect(try api.send("POST", "/v1/accounts", body: " {\n} ").status == 201)
        #expect(try api.send("POST", "/v1/accounts", body: #"{"attestation": {"anything": [1, 2]}}"#).status == 201)
        #expect(try api.send("POST", "/v1/accounts", body: #"{"attestation": null}"#).status == 201)
    }

    @Test func createRefusesOtherFields() throws {
        let api = try APIHarness()
        let answer = try api.send("POST", "/v1/accounts", body: #"{"name": "me", "email": "a@b.c", "attestation": "x"}"#)
        #expect(answer.status == 422)
        #expect(answer.text == validationBody([("email", "Unknown field."), ("name", "Unknown field.")]))
    }

    @Test func getAnswersTheAccount() throws {
        let api = try APIHarness()
        let (id, token) = try api.createAccount()
        let answer = try api.send("GET", "/v1/account", [bearer(token)])
        #expect(answer.status == 200)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        #expect(answer.text == accountJSON(id: id))
    }

    @Test func patchChangesLiveActivities() throws {
        let api = try APIHarness()
        let (id, token) = try api.createAccount()
        let off = try api.send("PATCH", "/v1/account", [bearer(token)], body: #"{"settings": {"live_activities": false}}"#)
        #expect(off.status == 200)
        #expect(off.text == accountJSON(id: id, liveActivities: false))
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).text == accountJSON(id: id, liveActivities: false))

        for body in ["{}", #"{"settings": {}}"#, ""] {
            let same = try api.send("PATCH", "/v1/account", [bearer(token)], body: body)
            #expect(same.status == 200)
            #expect(same.text == accountJSON(id: id, liveActivities: false))
        }
        let on = try api.send("PATCH", "/v1/account", [bearer(token)], body: #"{"settings": {"live_activities": true}}"#)
        #expect(on.text == accountJSON(id: id, liveActivities: true))
    }

    @Test func patchOfOneAccountLeavesTheOthers() throws {
        let api = try APIHarness()
        let (_, mine) = try api.createAccount()
        let (otherID, other) = try api.createAccount()
        _ = try api.send("PATCH", "/v1/account", [bearer(mine)], body: #"{"settings": {"live_activities": false}}"#)
        #expect(try api.send("GET", "/v1/account", [bearer(other)]).text == accountJSON(id: otherID))
    }

    @Test func deleteAnswersNoContentAndEveryCredentialStopsAtOnce() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let (_, first) = try api.createKey(token: token, label: "one")
        let (_, second) = try api.createKey(token: token, label: "two")
        let (otherID, other) = try api.createAccount()

        let answer = try api.send("DELETE", "/v1/account", [bearer(token)])
        #expect(answer.status == 204)
        #expect(answer.response.body.isEmpty)
        #expect(answer.response.headers.isEmpty)
        #expect(api.deletions == 1)

        let unauthorized = errorBody("unauthorized", "The credential is missing or wrong.")
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).text == unauthorized)
        #expect(try api.send("DELETE", "/v1/account", [bearer(token)]).status == 401)
        #expect(try api.send("GET", "/v1/account", [apiKey(first)]).text == unauthorized)
        #expect(try api.send("GET", "/v1/account", [apiKey(second)]).text == unauthorized)
        #expect(api.deletions == 1)
        #expect(try api.send("GET", "/v1/account", [bearer(other)]).text == accountJSON(id: otherID))
    }
}
