@testable import API
import HTTP
import JSON
import Relaydeck
import Testing

/// `GET /oauth/authorize` (OAuth 2.1 4.1.1, RFC 8707): a request that checks out goes on to
/// the console; an unknown client or redirect URI gets a page and is never redirected (no open
/// redirect); every later problem goes back to the client with `state` and `iss`.
@Suite struct AuthorizeEndpointTests {
    static let base = "response_type=code&code_challenge=\(OAuthHarness.challenge)&code_challenge_method=S256"
        + "&resource=https%3A%2F%2Frelay.example%2Fmcp&state=xyz"

    func query(_ oauth: OAuthHarness, redirect: String = OAuthHarness.redirect, _ extra: String = "") -> String {
        "client_id=\(oauth.client.id)&redirect_uri=\(AuthorizationRequest.percentEncoded(redirect))&\(Self.base)\(extra)"
    }

    @Test func aRequestThatChecksOutGoesOnToTheConsolesConsentPage() async throws {
        let oauth = try await OAuthHarness()
        let query = query(oauth, "&scope=tasks%3Aread")
        let answer = try oauth.api.send("GET", "/oauth/authorize?" + query)
        #expect(answer.status == 302)
        #expect(answer.headers == ["Location: /app/#/authorize?" + query, "Cache-Control: no-store", "Referrer-Policy: no-referrer"])
    }

    @Test(arguments: [
        ("client_id=oac_nobody&redirect_uri=https%3A%2F%2Fconnector.example%2Fcallback", "The client is not registered with this server. Start again from the application."),
        ("redirect_uri=https%3A%2F%2Fconnector.example%2Fcallback", "The request names no client (client_id)."),
    ])
    func anUnknownClientGetsAPageAndNoRedirect(_ start: String, _ message: String) async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("GET", "/oauth/authorize?\(start)&\(Self.base)")
        #expect(answer.status == 400 && answer.header("Location") == nil)
        #expect(answer.header("Content-Type") == "text/html; charset=utf-8" && answer.header("X-Frame-Options") == "DENY")
        #expect(answer.text.contains("<p>\(SitePage.escape(message))</p>"))
    }

    @Test(arguments: [
        "https://evil.example/callback", "https://connector.example/callback/", "https://Connector.example/callback",
        "https://connector.example/callback?x=1", "https://connector.example/callback#", "https://connector.example@evil.example/callback",
        "//evil.example/callback", "",
    ])
    func aRedirectURIThatIsNotExactlyARegisteredOneGetsAPage(redirect: String) async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("GET", "/oauth/authorize?" + query(oauth, redirect: redirect))
        #expect(answer.status == 400 && answer.header("Location") == nil)
        #expect(answer.text.contains("The redirect URI is not one the client registered."))
    }

    @Test func aRepeatedRedirectURIGetsAPage() async throws {
        let oauth = try await OAuthHarness()
        let answer = try oauth.api.send("GET", "/oauth/authorize?" + query(oauth, "&redirect_uri=https%3A%2F%2Fevil.example%2F"))
        #expect(answer.status == 400 && answer.header("Location") == nil)
        #expect(answer.text.contains("A parameter was sent more than once, or is not valid encoding."))
    }

    @Test(arguments: [
        ("&response_type=token", "response_type=code", "unsupported_response_type", "response_type must be code."),
        ("", "code_challenge_method=S256", "invalid_request", "PKCE is required: code_challenge with code_challenge_method S256."),
        ("&code_challenge_method=plain", "code_challenge_method=S256", "invalid_request",
         "PKCE is required: code_challenge with code_challenge_method S256."),
        ("&resource=https%3A%2F%2Fother.example%2Fmcp", "resource=https%3A%2F%2Frelay.example%2Fmcp", "invalid_target",
         "resource must be https://relay.example/mcp."),
        ("", "resource=https%3A%2F%2Frelay.example%2Fmcp", "invalid_target", "resource must be https://relay.example/mcp."),
        ("&scope=admin", "", "invalid_scope", "scope names an unknown scope."),
    ])
    func laterProblemsGoBackToTheClientWithStateAndIss(_ add: String, _ drop: String, _ error: String, _ description: String) async throws {
        let oauth = try await OAuthHarness()
        var query = query(oauth)
        if !drop.isEmpty, let range = query.firstRange(of: "&" + drop) { query.removeSubrange(range) }
        let answer = try oauth.api.send("GET", "/oauth/authorize?" + query + add)
        #expect(answer.status == 302)
        #expect(answer.header("Location") == "\(OAuthHarness.redirect)?error=\(error)&error_description="
            + AuthorizationRequest.percentEncoded(description) + "&state=xyz&iss=https%3A%2F%2Frelay.example")
    }

    @Test func withoutPublicURLThePageSaysOAuthIsOff() async throws {
        let oauth = try await OAuthHarness(publicOrigin: nil)
        let answer = try oauth.api.send("GET", "/oauth/authorize?" + query(oauth))
        #expect(answer.status == 400 && answer.header("Location") == nil)
        #expect(answer.text.contains("OAuth is off on this server: its operator has not set PUBLIC_URL."))
    }
}
