@testable import API
import Clock
import Crypto
import JSON
import Relaydeck
import Testing

/// `POST /oauth/token` (OAuth 2.1 4.1.3, 4.3; RFC 6749 5): the code traded for tokens once,
/// refresh tokens rotated, every refusal in RFC 6749's shape, and nothing cached.
@Suite struct TokenEndpointTests {
    static let noStore = ["Content-Type: application/json", "Cache-Control: no-store", "Pragma: no-cache"]

    @Test func aCodeIsTradedForABearerTokenAndARefreshToken() async throws {
        let oauth = try await OAuthHarness()
        let code = try await oauth.code(scopes: ScopeSet([.tasksRead, .inbox]))
        let answer = try oauth.post("/oauth/token", "grant_type=authorization_code&code=\(code)"
            + "&redirect_uri=https%3A%2F%2Fconnector.example%2Fcallback&code_verifier=\(OAuthHarness.verifier)"
            + "&client_id=\(oauth.client.id)")
        #expect(answer.status == 200)
        #expect(answer.headers == Self.noStore)
        let json = try answer.json()
        let access = try #require(json["access_token"]?.stringValue)
        let refresh = try #require(json["refresh_token"]?.stringValue)
        #expect(access.hasPrefix("mco_") && refresh.hasPrefix("mcr_"))
        #expect(answer.text == #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(refresh)","scope":"tasks:read inbox"}"#)
        // No principal: the token endpoint has no activity entry.
        #expect(answer.record.principal == nil && answer.pattern == "/oauth/token")
    }

    @Test func theAccessTokenActsAsTheKeyOnMCPAndTheKeysRESTRoutesWithinItsScopes() async throws {
        let oauth = try await OAuthHarness()
        let access = try #require(try await oauth.tokens(scopes: ScopeSet([.tasksRead]))["access_token"]?.stringValue)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 200)
        let write = try oauth.api.send("POST", "/v1/tasks", [bearer(access)], body: #"{"title":"Ship"}"#)
        #expect(write.status == 403)
        #expect(write.text == errorBody("insufficient_scope",
            "The key lacks the scope tasks:write, which this route needs. The person can give the key this scope in the web console."))
        // An account route stays the account's.
        #expect(try oauth.api.send("GET", "/v1/keys", [bearer(access)]).text == errorBody("forbidden", "An API key cannot use this route."))
        let mcp = MCPClient(api: oauth.api, secret: access)
        let listed = try mcp.modern("tools/list")
        #expect(listed.status == 200)
        let names = try listed.json()["result"]?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["list_tasks", "get_task"])
        // Sent as X-API-Key or in the query it is no credential: bearer in the header only.
        #expect(try oauth.api.send("GET", "/v1/tasks", [apiKey(access)]).status == 401)
        #expect(try oauth.api.send("POST", "/mcp?key=\(access)", body: "{}").status == 401)
    }

    @Test func theActivityLogNamesTheConnectorWhateverClientInfoItSends() async throws {
        let oauth = try await OAuthHarness()
        let access = try #require(try await oauth.tokens()["access_token"]?.stringValue)
        var mcp = MCPClient(api: oauth.api, secret: access)
        mcp.clientName = "someone-else"
        let answer = try mcp.modern("tools/list")
        #expect(answer.record.client == Key.Client(name: "Claude", version: ""))
        let entry = try #require(try oauth.api.entries(token: oauth.token, keyID: oauth.key.id).first)
        #expect(entry["client"]?["name"]?.stringValue == "Claude" && entry["client"]?["version"]?.stringValue == "")
        #expect(entry["action"]?.stringValue == "tools/list")
    }

    @Test func aCodeUsedTwiceIsRefusedAndTheTokensItGaveStop() async throws {
        let oauth = try await OAuthHarness()
        let code = try await oauth.code()
        let body = "grant_type=authorization_code&code=\(code)&redirect_uri=\(OAuthHarness.redirect)"
            + "&code_verifier=\(OAuthHarness.verifier)&client_id=\(oauth.client.id)"
        let first = try oauth.post("/oauth/token", body).json()
        let access = try #require(first["access_token"]?.stringValue)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 200)
        let again = try oauth.post("/oauth/token", body)
        #expect(again.status == 400)
        #expect(again.text == oauthErrorBody("invalid_grant", "The code was used already; the grant made from it is revoked."))
        #expect(again.headers.starts(with: Self.noStore))
        let refused = try oauth.api.send("GET", "/v1/tasks", [bearer(access)])
        #expect(refused.status == 401 && refused.text == errorBody("unauthorized", "The credential is missing or wrong."))
    }

    @Test func aWrongVerifierIsRefusedAndAnUnknownParameterIgnored() async throws {
        let oauth = try await OAuthHarness()
        let code = try await oauth.code()
        let base = "grant_type=authorization_code&code=\(code)&redirect_uri=\(OAuthHarness.redirect)&client_id=\(oauth.client.id)"
        let wrong = try oauth.post("/oauth/token", base + "&code_verifier=" + String(repeating: "b", count: 43))
        #expect(wrong.status == 400 && wrong.text == oauthErrorBody("invalid_grant", "code_verifier does not match the code challenge."))
        // RFC 6749 3.1: a parameter the server does not know is ignored.
        let right = try oauth.post("/oauth/token", base + "&code_verifier=\(OAuthHarness.verifier)&resource_extra=1")
        #expect(right.status == 200)
    }

    @Test func aResourceNamedAtTheTokenEndpointMustBeThisOne() async throws {
        let oauth = try await OAuthHarness()
        let trade = "grant_type=authorization_code&redirect_uri=\(OAuthHarness.redirect)&code_verifier=\(OAuthHarness.verifier)"
            + "&client_id=\(oauth.client.id)"
        let other = try oauth.post("/oauth/token", trade + "&code=\(try await oauth.code())&resource=https%3A%2F%2Fother.example%2Fmcp")
        #expect(other.status == 400 && other.text == oauthErrorBody("invalid_target", "resource must be https://relay.example/mcp."))
        let same = try oauth.post("/oauth/token", trade + "&code=\(try await oauth.code())&resource=https%3A%2F%2Frelay.example%2Fmcp")
        #expect(same.status == 200)
    }

    @Test func aCodeOfAnotherClientOrRedirectIsRefused() async throws {
        let oauth = try await OAuthHarness()
        let other = try await OAuthHarness.register(oauth.api, "Other")
        let code = try await oauth.code()
        let asOther = try oauth.post("/oauth/token", "grant_type=authorization_code&code=\(code)"
            + "&redirect_uri=\(OAuthHarness.redirect)&code_verifier=\(OAuthHarness.verifier)&client_id=\(other.id)")
        #expect(asOther.text == oauthErrorBody("invalid_grant", "The code was issued to another client."))
        let elsewhere = try oauth.post("/oauth/token", "grant_type=authorization_code&code=\(code)"
            + "&redirect_uri=https://connector.example/other&code_verifier=\(OAuthHarness.verifier)&client_id=\(oauth.client.id)")
        #expect(elsewhere.text == oauthErrorBody("invalid_grant", "redirect_uri differs from the authorization request's."))
    }

    @Test func aRefreshRotatesAndAReusedRefreshTokenRevokesTheGrant() async throws {
        let oauth = try await OAuthHarness()
        let first = try await oauth.tokens()
        let refresh = try #require(first["refresh_token"]?.stringValue)
        let body = "grant_type=refresh_token&refresh_token=\(refresh)&client_id=\(oauth.client.id)"
        let second = try oauth.post("/oauth/token", body)
        #expect(second.status == 200 && second.headers.starts(with: Self.noStore))
        let access = try #require(try second.json()["access_token"]?.stringValue)
        #expect(try second.json()["refresh_token"]?.stringValue != refresh)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 200)
        let reused = try oauth.post("/oauth/token", body)
        #expect(reused.status == 400)
        #expect(reused.text == oauthErrorBody("invalid_grant", "The refresh token was used already; the grant is revoked."))
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 401)
    }

    @Test func aRefreshAskingForMoreThanTheGrantIsInvalidScope() async throws {
        let oauth = try await OAuthHarness()
        let refresh = try #require(try await oauth.tokens(scopes: ScopeSet([.tasksRead]))["refresh_token"]?.stringValue)
        let wider = try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=\(refresh)"
            + "&client_id=\(oauth.client.id)&scope=tasks%3Aread+tasks%3Awrite")
        #expect(wider.status == 400 && wider.text == oauthErrorBody("invalid_scope", "scope may only name scopes of the grant."))
        let unknown = try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=\(refresh)"
            + "&client_id=\(oauth.client.id)&scope=admin")
        #expect(unknown.text == oauthErrorBody("invalid_scope", "scope names an unknown scope."))
        // Neither spent the refresh token.
        let same = try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=\(refresh)"
            + "&client_id=\(oauth.client.id)&scope=tasks%3Aread")
        #expect(same.status == 200)
        #expect(try same.json()["scope"]?.stringValue == "tasks:read")
    }

    @Test(arguments: [
        ("grant_type=password&username=a&password=b", "unsupported_grant_type", "grant_type must be authorization_code or refresh_token."),
        ("code=x", "invalid_request", "grant_type is required."),
        ("grant_type=authorization_code&code=x&code=y", "invalid_request", "A parameter was sent more than once."),
        ("grant_type=authorization_code&redirect_uri=x&code_verifier=y", "invalid_request", "code is required."),
        ("grant_type=refresh_token", "invalid_request", "refresh_token is required."),
        ("grant_type=authorization_code&code=%ZZ", "invalid_request", "The body is not valid percent-encoded UTF-8."),
    ])
    func aMalformedTokenRequestIsInvalidRequest(_ body: String, _ code: String, _ description: String) async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.post("/oauth/token", body + "&client_id=\(oauth.client.id)")
        #expect(answer.status == 400)
        #expect(answer.text == oauthErrorBody(code, description))
    }

    @Test func aBodyThatIsNotAFormIsInvalidRequest() async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.post("/oauth/token", #"{"grant_type":"refresh_token"}"#, headers: [("Content-Type", "application/json")])
        #expect(answer.status == 400)
        #expect(answer.text == oauthErrorBody("invalid_request", "The body must be application/x-www-form-urlencoded."))
    }

    @Test func anUnknownClientIsInvalidClientAndThroughBasicA401() async throws {
        let oauth = try await OAuthHarness()
        let inBody = try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=x&client_id=oac_nobody")
        #expect(inBody.status == 400 && inBody.text == oauthErrorBody("invalid_client", "The client is unknown."))
        let missing = try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=x")
        #expect(missing.status == 400 && missing.text == oauthErrorBody("invalid_client", "client_id is required."))
        // "oac_nobody:secret"
        let basic = try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=x",
                                   headers: [OAuthHarness.form, ("Authorization", "Basic b2FjX25vYm9keTpzZWNyZXQ=")])
        #expect(basic.status == 401 && basic.text == oauthErrorBody("invalid_client", "The client is unknown."))
        #expect(basic.header("WWW-Authenticate") == #"Basic realm="relaydeck""#)
    }

    @Test func aConfidentialClientAuthenticatesWithItsSecretInTheBodyOrThroughBasic() async throws {
        let oauth = try await OAuthHarness()
        let checked = try TextRule.clientName.check("Server").get()
        let (client, secret) = try await oauth.api.services.oauthClients.register(
            name: checked, redirectURIs: [OAuthHarness.redirect], authMethod: .clientSecretBasic)
        let secretText = try #require(secret?.text)
        let trade = "grant_type=authorization_code&redirect_uri=\(OAuthHarness.redirect)&code_verifier=\(OAuthHarness.verifier)"
        let viaBody = try oauth.post("/oauth/token", trade + "&code=\(try await oauth.code(client: client))&client_id=\(client.id)"
            + "&client_secret=\(secretText)")
        #expect(viaBody.status == 200)
        let credentials = Base64.encode(Array("\(client.id):\(secretText)".utf8))
        let viaBasic = try oauth.post("/oauth/token", trade + "&code=\(try await oauth.code(client: client))",
                                      headers: [OAuthHarness.form, ("Authorization", "Basic \(credentials)")])
        #expect(viaBasic.status == 200)
        let wrong = try oauth.post("/oauth/token", trade + "&code=\(try await oauth.code(client: client))&client_id=\(client.id)"
            + "&client_secret=mcx_wrong")
        #expect(wrong.status == 400 && wrong.text == oauthErrorBody("invalid_client", "The client secret is wrong."))
        let none = try oauth.post("/oauth/token", trade + "&code=\(try await oauth.code(client: client))&client_id=\(client.id)")
        #expect(none.text == oauthErrorBody("invalid_client",
            "The client must authenticate the way it registered (a public client sends no secret)."))
    }

    @Test func withoutPublicURLOAuthIsOffAndAnAccessTokenIsNoCredential() async throws {
        let oauth = try await OAuthHarness(publicOrigin: nil)
        let answer = try oauth.post("/oauth/token", "grant_type=authorization_code&code=\(try await oauth.code())"
            + "&redirect_uri=\(OAuthHarness.redirect)&code_verifier=\(OAuthHarness.verifier)&client_id=\(oauth.client.id)")
        #expect(answer.status == 404)
        #expect(answer.text == errorBody("not_found",
            "OAuth is off on this server: its operator sets PUBLIC_URL to turn it on. Use an API key meanwhile."))
        // Tokens made while it was on (through the domain here) count for nothing now.
        let issued = try await oauth.api.services.oauthGrants.exchange(code: try await oauth.code(), client: oauth.client,
                                                                 redirectURI: OAuthHarness.redirect, verifier: OAuthHarness.verifier)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(issued.accessToken)]).status == 401)
    }

    @Test func anAccessTokenIsRefusedAfterItsHour() async throws {
        let oauth = try await OAuthHarness()
        let access = try #require(try await oauth.tokens()["access_token"]?.stringValue)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 200)
        oauth.api.clock.advance(millis: OAuthGrants.accessLifetimeMillis)
        let expired = try oauth.api.send("GET", "/v1/tasks", [bearer(access)])
        #expect(expired.status == 401 && expired.text == errorBody("unauthorized", "The credential is missing or wrong."))
    }

    @Test func deletingTheKeyStopsItsGrantsTokens() async throws {
        let oauth = try await OAuthHarness()
        let access = try #require(try await oauth.tokens()["access_token"]?.stringValue)
        #expect(try oauth.api.send("DELETE", "/v1/keys/\(oauth.key.id)", [bearer(oauth.token)]).status == 204)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 401)
    }
}
