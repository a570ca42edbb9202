@testable import API
import EventLoop
import HTTP
import JSON
import Relaydeck
import SQLite
import Testing

/// `POST /oauth/register` (RFC 7591): a client registers itself, public or confidential; what
/// this server cannot honour is refused whole, in RFC 7591's words; one address registers 20
/// clients an hour.
@Suite struct RegistrationEndpointTests {
    static let json = ("Content-Type", "application/json")

    func register(_ api: APIHarness, _ body: String, peer: PeerAddress? = nil) throws -> Answer {
        try api.send("POST", "/oauth/register", [Self.json], body: body, peer: peer)
    }

    static func clients(_ api: APIHarness) throws -> Int {
        try api.store.read { db in
            let statement = try db.prepare("SELECT count(*) FROM oauth_clients")
            _ = try statement.step()
            return statement.int(0)
        }
    }

    @Test func aPublicClientRegisters() async throws {
        let oauth = try await OAuthHarness()
        let answer = try register(oauth.api, #"{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"#
            + #""token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"#
            + #""response_types":["code"],"scope":"tasks:read inbox","logo_uri":"https://claude.ai/logo.png"}"#)
        #expect(answer.status == 201)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store", "Pragma: no-cache"])
        let id = try #require(try answer.json()["client_id"]?.stringValue)
        #expect(id.hasPrefix("oac_"))
        let issuedAt = oauth.api.clock.wallMillis / 1000
        #expect(answer.text == #"{"client_id":"\#(id)","client_id_issued_at":\#(issuedAt),"client_name":"Claude","#
            + #""redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"grant_types":["authorization_code","refresh_token"],"#
            + #""response_types":["code"],"token_endpoint_auth_method":"none"}"#)
        let client = try #require(try await oauth.api.services.oauthClients.get(id))
        #expect(client.name == "Claude" && client.authMethod == .none && client.kind == OAuthClient.Kind.registered)
        #expect(answer.record.principal == nil)
    }

    @Test func aClientThatNamesNoMethodIsConfidentialWithASecretShownOnce() async throws {
        let oauth = try await OAuthHarness()
        let answer = try register(oauth.api, #"{"redirect_uris":["http://127.0.0.1:33418/callback"]}"#)
        #expect(answer.status == 201)
        let json = try answer.json()
        let secret = try #require(json["client_secret"]?.stringValue)
        #expect(secret.hasPrefix("mcx_") && json["client_secret_expires_at"]?.int64Value == 0)
        #expect(json["token_endpoint_auth_method"]?.stringValue == "client_secret_basic")
        // No name: the person sees where it sends them back.
        #expect(json["client_name"]?.stringValue == "127.0.0.1")
        let id = try #require(json["client_id"]?.stringValue)
        #expect(try await oauth.api.services.oauthClients.authenticate(id: id, secret: secret).id == id)
    }

    @Test(arguments: [
        (#"{"client_name":"X"}"#, "invalid_redirect_uri", "redirect_uris must list 1 to 10 URIs."),
        (#"{"redirect_uris":[]}"#, "invalid_redirect_uri", "redirect_uris must list 1 to 10 URIs."),
        (#"{"redirect_uris":["http://evil.example/cb"]}"#, "invalid_redirect_uri",
         "Each redirect URI must be https:, http: to this machine (127.0.0.1, [::1], localhost), or an app's own scheme; without a fragment, at most 2000 bytes."),
        (#"{"redirect_uris":["javascript:alert(1)"]}"#, "invalid_redirect_uri",
         "Each redirect URI must be https:, http: to this machine (127.0.0.1, [::1], localhost), or an app's own scheme; without a fragment, at most 2000 bytes."),
        (#"{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}"#, "invalid_client_metadata",
         "grant_types may only name authorization_code and refresh_token."),
        (#"{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}"#, "invalid_client_metadata",
         "response_types may only name code."),
        (#"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#, "invalid_client_metadata",
         "token_endpoint_auth_method must be none, client_secret_post or client_secret_basic."),
        (#"{"redirect_uris":["https://a.example/cb"],"scope":"admin"}"#, "invalid_client_metadata",
         "scope must name scopes of this server, separated by spaces."),
        (#"{"redirect_uris":["https://a.example/cb"],"client_name":""}"#, "invalid_client_metadata",
         "client_name must be 1 to 100 characters on one line."),
        (#"{"redirect_uris":["https://a.example/cb"],"redirect_uris":["https://b.example/cb"]}"#, "invalid_client_metadata",
         "A member is sent more than once."),
        (#"["https://a.example/cb"]"#, "invalid_client_metadata", "The body must be a JSON object."),
        ("not json", "invalid_client_metadata", "The body must be a JSON object."),
    ])
    func whatThisServerCannotHonourIsRefusedWhole(_ body: String, _ code: String, _ description: String) async throws {
        let oauth = try await OAuthHarness()
        let answer = try register(oauth.api, body)
        #expect(answer.status == 400)
        #expect(answer.text == oauthErrorBody(code, description))
        // Nothing kept: the harness's own client only.
        #expect(try Self.clients(oauth.api) == 1)
    }

    @Test func elevenRedirectURIsAreTooMany() async throws {
        let oauth = try await OAuthHarness()
        let uris = (0..<11).map { #""https://a.example/\#($0)""# }.joined(separator: ",")
        let answer = try register(oauth.api, #"{"redirect_uris":[\#(uris)]}"#)
        #expect(answer.text == oauthErrorBody("invalid_redirect_uri", "redirect_uris must list 1 to 10 URIs."))
    }

    @Test func oneAddressRegistersTwentyClientsAnHourAndAnotherIsNotHeldBack() async throws {
        let oauth = try await OAuthHarness()
        let body = #"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"none"}"#
        for _ in 0..<20 { #expect(try register(oauth.api, body).status == 201) }
        let limited = try register(oauth.api, body)
        #expect(limited.status == 429)
        #expect(limited.text == oauthErrorBody("rate_limited", "Too many requests. Try again in 180 seconds."))
        #expect(limited.header("Retry-After") == "180")
        #expect(try register(oauth.api, body, peer: .ip(bytes: [192, 0, 2, 9], port: 1)).status == 201)
        #expect(try Self.clients(oauth.api) == 22)
    }

    @Test func aBodyThatIsNotJSONTypedIsRefused() async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("POST", "/oauth/register", [OAuthHarness.form], body: "redirect_uris=https://a.example/cb")
        #expect(answer.status == 400 && answer.text == oauthErrorBody("invalid_client_metadata", "The body must be application/json."))
    }
}
