@testable import API
import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// Discovery (issue 24; RFC 9728, RFC 8414, the MCP authorization specification): what
/// `/mcp` answers without a working credential, and the two metadata documents.
@Suite struct DiscoveryTests {
    static let metadataURL = "https://relay.example/.well-known/oauth-protected-resource"
    static let every = "tasks:read tasks:write questions notify messages inbox"
    static let documentHeaders = ["Content-Type: application/json", "Cache-Control: public, max-age=300",
                                  "Access-Control-Allow-Origin: *"]

    @Test func mcpWithoutACredentialPointsToTheResourceMetadataWithEveryScope() async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("POST", "/mcp", [("Content-Type", "application/json")],
                                        body: #"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#)
        #expect(answer.status == 401)
        #expect(answer.header("WWW-Authenticate") == #"Bearer resource_metadata="\#(Self.metadataURL)", scope="\#(Self.every)""#)
        #expect(answer.text == errorBody("unauthorized", "The credential is missing or wrong."))
    }

    @Test func mcpWithACredentialThatDoesNotWorkSaysInvalidToken() async throws {
        let oauth = try await OAuthHarness()
        let access = try #require(try await oauth.tokens()["access_token"]?.stringValue)
        oauth.api.clock.advance(millis: OAuthGrants.accessLifetimeMillis)
        for credential in [access, "mck_" + String(repeating: "a", count: 43)] {
            let answer = try oauth.api.send("POST", "/mcp", [bearer(credential)], body: "{}")
            #expect(answer.status == 401)
            #expect(answer.header("WWW-Authenticate") == #"Bearer error="invalid_token", resource_metadata="\#(Self.metadataURL)""#)
        }
    }

    @Test func restAnswersWithoutACredentialKeepTheirHeaders() async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("GET", "/v1/tasks")
        #expect(answer.status == 401 && answer.header("WWW-Authenticate") == nil)
    }

    @Test func aGrantRefusedAScopeOnRESTIsToldItInWWWAuthenticateAndAnAPIKeyIsNot() async throws {
        let oauth = try await OAuthHarness()
        let access = try #require(try await oauth.tokens(scopes: ScopeSet([.tasksRead]))["access_token"]?.stringValue)
        let refused = try oauth.api.send("POST", "/v1/tasks", [bearer(access)], body: #"{"title":"Ship"}"#)
        #expect(refused.status == 403)
        #expect(refused.header("WWW-Authenticate")
            == #"Bearer error="insufficient_scope", scope="tasks:write", resource_metadata="\#(Self.metadataURL)""#)
        _ = try oauth.api.send("PATCH", "/v1/keys/\(oauth.key.id)", [bearer(oauth.token)], body: #"{"scopes":["inbox"]}"#)
        let key = try oauth.api.send("GET", "/v1/tasks", [bearer(oauth.key.secret)])
        #expect(key.status == 403 && key.header("WWW-Authenticate") == nil)
    }

    @Test func aToolTheGrantMayNotCallStaysAToolError() async throws {
        let oauth = try await OAuthHarness()
        let access = try #require(try await oauth.tokens(scopes: ScopeSet([.tasksRead]))["access_token"]?.stringValue)
        let answer = try MCPClient(api: oauth.api, secret: access).modern(
            "tools/call", #""name":"create_task","arguments":{"title":"Ship"}"#, name: "create_task")
        #expect(answer.status == 200 && answer.header("WWW-Authenticate") == nil)
        #expect(try answer.json()["result"]?["isError"]?.boolValue == true)
    }

    @Test(arguments: ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"])
    func theProtectedResourceMetadataNamesTheResourceAndItsAuthorizationServer(path: String) async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("GET", path)
        #expect(answer.status == 200 && answer.headers == Self.documentHeaders)
        #expect(answer.text == #"{"resource":"https://relay.example/mcp","authorization_servers":["https://relay.example"],"#
            + #""scopes_supported":["tasks:read","tasks:write","questions","notify","messages","inbox"],"#
            + #""bearer_methods_supported":["header"],"resource_name":"Relaydeck"}"#)
        #expect(answer.record.principal == nil)
    }

    @Test func theAuthorizationServerMetadataListsWhatThisServerDoes() async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("GET", "/.well-known/oauth-authorization-server")
        #expect(answer.status == 200 && answer.headers == Self.documentHeaders)
        #expect(answer.text == #"{"issuer":"https://relay.example","authorization_endpoint":"https://relay.example/oauth/authorize","#
            + #""token_endpoint":"https://relay.example/oauth/token","#
            + #""registration_endpoint":"https://relay.example/oauth/register","#
            + #""revocation_endpoint":"https://relay.example/oauth/revoke","#
            + #""scopes_supported":["tasks:read","tasks:write","questions","notify","messages","inbox"],"#
            + #""response_types_supported":["code"],"grant_types_supported":["authorization_code","refresh_token"],"#
            + #""token_endpoint_auth_methods_supported":["none","client_secret_post","client_secret_basic"],"#
            + #""revocation_endpoint_auth_methods_supported":["none","client_secret_post","client_secret_basic"],"#
            + #""code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true,"#
            + #""authorization_response_iss_parameter_supported":true}"#)
        // Not an OpenID provider: no document there.
        #expect(try oauth.api.send("GET", "/.well-known/openid-configuration").status == 404)
    }

    @Test func withoutPublicURLThereIsNothingToDiscover() async throws {
        let oauth = try await OAuthHarness(publicOrigin: nil)
        for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
                     "/.well-known/oauth-authorization-server"] {
            let answer = try oauth.api.send("GET", path)
            #expect(answer.status == 404)
            #expect(answer.text == errorBody("not_found",
                "OAuth is off on this server: its operator sets PUBLIC_URL to turn it on. Use an API key meanwhile."))
        }
        let mcp = try oauth.api.send("POST", "/mcp", body: "{}")
        #expect(mcp.status == 401 && mcp.header("WWW-Authenticate") == nil)
    }
}
