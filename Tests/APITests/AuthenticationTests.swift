import HTTP
import JSON
import Relaydeck
import Testing

@Suite struct AuthenticationTests {
    private static let unauthorized = errorBody("unauthorized", "The credential is missing or wrong.")

    @Test func noCredentialIsUnauthorized() throws {
        let api = try APIHarness()
        for (method, path) in [("GET", "/v1/account"), ("PATCH", "/v1/account"), ("DELETE", "/v1/account"),
                               ("GET", "/v1/keys"), ("POST", "/v1/keys"),
                               ("PATCH", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav"),
                               ("DELETE", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav")] {
            let answer = try api.send(method, path)
            #expect(answer.status == 401, "\(method) \(path)")
            #expect(answer.text == Self.unauthorized)
            #expect(answer.headers == ["Content-Type: application/json"])
        }
    }

    @Test func wrongAndMalformedCredentialsAreUnauthorized() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let (_, secret) = try api.createKey(token: token)
        let refused: [[(String, String)]] = [
            [bearer("mca_" + String(repeating: "A", count: 43))],
            [bearer("mck_" + String(repeating: "A", count: 43))],
            [bearer(token + "x")],
            [bearer(String(token.dropLast()))],
            [bearer("mcx_" + token.dropFirst(4))],
            [("Authorization", "Basic dXNlcjpwYXNzd29yZA==")],
            [("Authorization", "Basic " + token)],
            [("Authorization", "Token " + token)],
            [("Authorization", token)],
            [("Authorization", "Bearer")],
            [("Authorization", "Bearer ")],
            [("Authorization", "")],
            [apiKey("mck_" + String(repeating: "A", count: 43))],
            [apiKey("")],
            [apiKey(String(repeating: "m", count: 5000))],
            [bearer(String(repeating: "mca_", count: 100))],
            [bearer(token), bearer(token)],
            [apiKey(secret), apiKey(secret)],
            [bearer(token), apiKey(secret)],
            [bearer(secret), apiKey(token)],
        ]
        for headers in refused {
            let answer = try api.send("GET", "/v1/account", headers)
            #expect(answer.status == 401, "\(headers.map { "\($0.0): \($0.1.prefix(20))" })")
            #expect(answer.text == Self.unauthorized)
        }
    }

    @Test func theBearerSchemeIsCaseInsensitive() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        for scheme in ["Bearer", "bearer", "BEARER"] {
            #expect(try api.send("GET", "/v1/account", [("Authorization", "\(scheme) \(token)")]).status == 200)
        }
        #expect(try api.send("GET", "/v1/account", [("Authorization", "Bearer  \(token)")]).status == 200)
    }

    @Test func authorizationAndAPIKeyThatAgreeAreAccepted() throws {
        let api = try APIHarness()
        let (id, token) = try api.createAccount()
        let (_, secret) = try api.createKey(token: token)
        let account = try api.send("GET", "/v1/account", [bearer(token)])
        #expect(account.status == 200)
        #expect(account.text == accountJSON(id: id))
        // The key got through authentication: what stops it is the route's access.
        let key = try api.send("GET", "/v1/account", [bearer(secret), apiKey(secret)])
        #expect(key.status == 403)
    }

    /// `overview.md#authentication`: X-API-Key carries an API key only.
    @Test func theAccountTokenInXAPIKeyIsUnauthorized() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        for headers in [[apiKey(token)], [bearer(token), apiKey(token)]] {
            let answer = try api.send("GET", "/v1/account", headers)
            #expect(answer.status == 401)
            #expect(answer.text == Self.unauthorized)
        }
    }

    @Test func anAPIKeyCannotUseAccountRoutes() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let (keyID, secret) = try api.createKey(token: token)
        for headers in [[apiKey(secret)], [bearer(secret)]] {
            for (method, path, body) in [("GET", "/v1/account", nil), ("HEAD", "/v1/account", nil),
                                         ("PATCH", "/v1/account", "{}"), ("DELETE", "/v1/account", nil),
                                         ("GET", "/v1/keys", nil), ("POST", "/v1/keys", #"{"label":"x"}"#),
                                         ("PATCH", "/v1/keys/\(keyID)", "{}"), ("DELETE", "/v1/keys/\(keyID)", nil)] as [(String, String, String?)] {
                let answer = try api.send(method, path, headers, body: body)
                #expect(answer.status == 403, "\(method) \(path)")
                #expect(answer.text == errorBody("forbidden", "An API key cannot use this route."))
            }
        }
        // Nothing was changed or deleted by those requests.
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 200)
        #expect(try api.send("GET", "/v1/keys", [bearer(token)]).json()["keys"]?.arrayValue?.count == 1)
    }

    /// A body the route would refuse does not get ahead of the credential.
    @Test func theCredentialIsCheckedBeforeTheFields() throws {
        let api = try APIHarness()
        let answer = try api.send("POST", "/v1/keys", body: #"{"label": 5, "extra": true}"#)
        #expect(answer.status == 401)
        #expect(answer.text == Self.unauthorized)
    }
}
