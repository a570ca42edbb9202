@testable import API
import Clock
import HTTP
import HTTPTestSupport
import JSON
import Relaydeck
import Testing

/// `POST /oauth/revoke` (RFC 7009): a refresh token ends its grant, an access token itself;
/// `200` whatever the token was; and a revoked grant's waiting calls end at once.
@Suite struct RevocationEndpointTests {
    @Test func revokingTheRefreshTokenEndsTheGrantWithAnEmpty200() async throws {
        let oauth = try await OAuthHarness()
        let tokens = try await oauth.tokens()
        let access = try #require(tokens["access_token"]?.stringValue)
        let refresh = try #require(tokens["refresh_token"]?.stringValue)
        let answer = try oauth.post("/oauth/revoke", "token=\(refresh)&token_type_hint=refresh_token&client_id=\(oauth.client.id)")
        #expect(answer.status == 200 && answer.response.body.isEmpty)
        #expect(answer.headers == ["Cache-Control: no-store", "Pragma: no-cache"])
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 401)
        let renewed = try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=\(refresh)&client_id=\(oauth.client.id)")
        #expect(renewed.text == oauthErrorBody("invalid_grant", "The refresh token is unknown, expired or revoked."))
        #expect(try await oauth.api.services.oauthGrants.list(accountID: oauth.accountID).isEmpty)
    }

    @Test func revokingTheAccessTokenLeavesTheGrant() async throws {
        let oauth = try await OAuthHarness()
        let tokens = try await oauth.tokens()
        let access = try #require(tokens["access_token"]?.stringValue)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 200)
        #expect(try oauth.post("/oauth/revoke", "token=\(access)&client_id=\(oauth.client.id)").status == 200)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 401)
        let refresh = try #require(tokens["refresh_token"]?.stringValue)
        #expect(try oauth.post("/oauth/token", "grant_type=refresh_token&refresh_token=\(refresh)&client_id=\(oauth.client.id)").status == 200)
    }

    @Test func anotherClientsTokenOrNoTokenIsAnswered200AndLeftAlone() async throws {
        let oauth = try await OAuthHarness()
        let other = try await OAuthHarness.register(oauth.api, "Other")
        let access = try #require(try await oauth.tokens()["access_token"]?.stringValue)
        for token in [access, "mco_unknown", oauth.key.secret, String(repeating: "x", count: 5_000)] {
            #expect(try oauth.post("/oauth/revoke", "token=\(token)&client_id=\(other.id)").status == 200)
        }
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 200)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(oauth.key.secret)]).status == 200)
    }

    @Test func anUnknownHintIsUnsupportedTokenTypeAndAMissingTokenInvalidRequest() async throws {
        let oauth = try await OAuthHarness()
        let hint = try oauth.post("/oauth/revoke", "token=x&token_type_hint=id_token&client_id=\(oauth.client.id)")
        #expect(hint.status == 400)
        #expect(hint.text == oauthErrorBody("unsupported_token_type", "token_type_hint must be access_token or refresh_token."))
        let missing = try oauth.post("/oauth/revoke", "client_id=\(oauth.client.id)")
        #expect(missing.status == 400 && missing.text == oauthErrorBody("invalid_request", "token is required."))
        let noClient = try oauth.post("/oauth/revoke", "token=x")
        #expect(noClient.text == oauthErrorBody("invalid_client", "client_id is required."))
    }

    @Test func aRevokedGrantsWaitingCallEndsAtOnceAndTheKeysOwnGoesOn() async throws {
        var configuration = APIConfiguration()
        configuration.publicOrigin = OAuthHarness.origin
        let api = try APIServer(configuration: configuration)
        let token = try api.accountToken()
        let secret = try api.keySecret(token: token)
        let keyID = try api.keyID(secret: secret)
        let accountID = try #require(try await api.services.authenticator.authenticate(Substring(token))?.accountID)
        let client = try await api.services.oauthClients.register(name: try TextRule.clientName.check("Claude").get(),
                                                                  redirectURIs: [OAuthHarness.redirect], authMethod: .none).client
        let code = try await api.services.oauthGrants.issueCode(Consent(
            accountID: accountID, keyID: keyID, clientID: client.id, scopes: .all, redirectURI: OAuthHarness.redirect,
            codeChallenge: OAuthHarness.challenge, resource: OAuthHarness.resource))
        let issued = try await api.services.oauthGrants.exchange(code: code, client: client, redirectURI: OAuthHarness.redirect,
                                                           verifier: OAuthHarness.verifier)
        func parked(_ credential: String) -> TestClient {
            let connection = api.loopback.connect()
            let before = api.handler.waitingCount
            connection.send("GET /v1/inbox?wait=50 HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(credential)\r\n\r\n")
            api.loopback.pump { api.handler.waitingCount == before + 1 }
            return connection
        }
        let connector = parked(issued.accessToken)
        let agent = parked(secret)
        let started = api.loopback.clock.now
        let body = "token=\(issued.refreshToken)&client_id=\(client.id)"
        let revoke = api.loopback.connect()
        revoke.send("POST /oauth/revoke HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(api.loopback.response(revoke)?.status == 200)
        let ended = try #require(api.loopback.response(connector))
        #expect(api.loopback.clock.now == started)
        #expect(ended.status == 401)
        #expect(ended.bodyText == #"{"error":{"code":"unauthorized","message":"The credential is missing or wrong."}}"#)
        api.loopback.pump(rounds: 20)
        #expect(!agent.hasCompleteResponse && api.handler.waitingCount == 1)
    }
}
