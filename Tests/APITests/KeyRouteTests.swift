import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// `rest-api.md#keys`
@Suite struct KeyRouteTests {
    @Test func createAnswersTheKeyAndItsSecretOnce() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        api.clock.wallMillis = 1_760_112_000_400
        let answer = try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "  Claude\n\tCode "}"#)
        #expect(answer.status == 201)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        let json = try answer.json()
        let id = try #require(json["key"]?["id"]?.stringValue)
        let secret = try #require(json["secret"]?.stringValue)
        let key = keyJSON(id: id, label: "Claude Code", secret: secret, createdAt: "1760112000.4")
        #expect(answer.text == #"{"key":\#(key),"secret":"\#(secret)"}"#)
        #expect(Identifier.isWellFormed(Substring(id), prefix: "key_"))
        #expect(secret.hasPrefix("mck_") && secret.utf8.count == 47)
        // The list shows the key, never the secret.
        let list = try api.send("GET", "/v1/keys", [bearer(token)])
        #expect(list.text == #"{"keys":[\#(key)]}"#)
    }

    @Test func listIsEmptyFirstThenNewestFirst() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let empty = try api.send("GET", "/v1/keys", [bearer(token)])
        #expect(empty.status == 200)
        #expect(empty.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        #expect(empty.text == #"{"keys":[]}"#)

        let first = try api.createKey(token: token, label: "first")
        api.clock.advance(millis: 1_500)
        let second = try api.createKey(token: token, label: "second")
        let list = try api.send("GET", "/v1/keys", [bearer(token)])
        #expect(list.text == #"{"keys":["#
            + keyJSON(id: second.id, label: "second", secret: second.secret, createdAt: "1760000001.5") + ","
            + keyJSON(id: first.id, label: "first", secret: first.secret) + "]}")
    }

    @Test func listShowsOnlyTheAccountsOwnKeys() throws {
        let api = try APIHarness()
        let (_, mine) = try api.createAccount()
        let (_, theirs) = try api.createAccount()
        let key = try api.createKey(token: mine, label: "mine")
        _ = try api.createKey(token: theirs, label: "theirs")
        #expect(try api.send("GET", "/v1/keys", [bearer(mine)]).text
            == #"{"keys":[\#(keyJSON(id: key.id, label: "mine", secret: key.secret))]}"#)
    }

    @Test func theTwentyFirstKeyIsAConflict() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        var ids: [String] = []
        for index in 1...20 {
            ids.append(try api.createKey(token: token, label: "key \(index)").id)
        }
        let answer = try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "21"}"#)
        #expect(answer.status == 409)
        #expect(answer.text == errorBody("conflict", "An account can have 20 keys."))

        #expect(try api.send("DELETE", "/v1/keys/\(ids[3])", [bearer(token)]).status == 204)
        #expect(try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "21"}"#).status == 201)
        #expect(try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "22"}"#).status == 409)
    }

    @Test func patchChangesTheLabel() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token, label: "Cursor")
        api.clock.advance(millis: 9_000)
        let answer = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)], body: #"{"label": "Cursor  (work)"}"#)
        #expect(answer.status == 200)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        let expected = keyJSON(id: key.id, label: "Cursor (work)", secret: key.secret)
        #expect(answer.text == expected)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text == #"{"keys":[\#(expected)]}"#)
    }

    @Test func patchWithoutALabelChangesNothing() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let key = try api.createKey(token: token, label: "Cursor")
        for body in ["{}", ""] {
            let answer = try api.send("PATCH", "/v1/keys/\(key.id)", [bearer(token)], body: body)
            #expect(answer.status == 200)
            #expect(answer.text == keyJSON(id: key.id, label: "Cursor", secret: key.secret))
        }
    }

    @Test func aKeyOfAnotherAccountAnUnknownOrDeletedKeyIsNotFound() throws {
        let api = try APIHarness()
        let (_, mine) = try api.createAccount()
        let (_, theirs) = try api.createAccount()
        let theirKey = try api.createKey(token: theirs, label: "theirs")
        let gone = try api.createKey(token: mine, label: "gone")
        #expect(try api.send("DELETE", "/v1/keys/\(gone.id)", [bearer(mine)]).status == 204)

        let notFound = errorBody("not_found", "Key not found.")
        for id in [theirKey.id, gone.id, "key_01arz3ndektsv4rrffq69g5fav", "nonsense", "acc_01arz3ndektsv4rrffq69g5fav"] {
            let patch = try api.send("PATCH", "/v1/keys/\(id)", [bearer(mine)], body: #"{"label": "mine"}"#)
            #expect(patch.status == 404, "\(id)")
            #expect(patch.text == notFound)
            let delete = try api.send("DELETE", "/v1/keys/\(id)", [bearer(mine)])
            #expect(delete.status == 404, "\(id)")
            #expect(delete.text == notFound)
        }
        // Their key is untouched and still works.
        #expect(try api.send("GET", "/v1/keys", [bearer(theirs)]).text
            == #"{"keys":[\#(keyJSON(id: theirKey.id, label: "theirs", secret: theirKey.secret))]}"#)
        #expect(try api.send("GET", "/v1/account", [apiKey(theirKey.secret)]).status == 403)
    }

    @Test func deleteAnswersNoContentAndTheSecretStopsAtOnce() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let kept = try api.createKey(token: token, label: "kept")
        let key = try api.createKey(token: token, label: "gone")
        #expect(try api.send("GET", "/v1/account", [apiKey(key.secret)]).status == 403)

        let answer = try api.send("DELETE", "/v1/keys/\(key.id)", [bearer(token)])
        #expect(answer.status == 204)
        #expect(answer.response.body.isEmpty)
        #expect(answer.response.headers.isEmpty)
        #expect(api.deletions == 1)
        #expect(answer.pattern == "/v1/keys/{key_id}")

        #expect(try api.send("GET", "/v1/account", [apiKey(key.secret)]).text
            == errorBody("unauthorized", "The credential is missing or wrong."))
        #expect(try api.send("GET", "/v1/account", [apiKey(kept.secret)]).status == 403)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).text
            == #"{"keys":[\#(keyJSON(id: kept.id, label: "kept", secret: kept.secret, lastUsedAt: "1760000000.0"))]}"#)
    }
}
