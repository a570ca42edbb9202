import Clock
@testable import Relaydeck
import Testing

/// The small rules of OAuth: PKCE's S256, which redirect URIs a client may name, the `scope`
/// words, and how a client proves itself at the token endpoint.
@Suite struct OAuthRulesTests {
    @Test func pkceAcceptsRFC7636sVectorAndNothingElse() {
        #expect(PKCE.verifies(OAuthFixture.verifier, challenge: OAuthFixture.challenge))
        #expect(!PKCE.verifies(OAuthFixture.verifier + "A", challenge: OAuthFixture.challenge))
        #expect(!PKCE.verifies(OAuthFixture.challenge, challenge: OAuthFixture.challenge))
        #expect(PKCE.isChallenge(OAuthFixture.challenge))
        #expect(!PKCE.isChallenge(OAuthFixture.challenge + "="))
        #expect(!PKCE.isChallenge(String(OAuthFixture.challenge.dropLast())))
        // 43 to 128 unreserved characters.
        #expect(PKCE.isVerifier(String(repeating: "a", count: 43)) && PKCE.isVerifier(String(repeating: "~", count: 128)))
        #expect(!PKCE.isVerifier(String(repeating: "a", count: 42)) && !PKCE.isVerifier(String(repeating: "a", count: 129)))
        #expect(!PKCE.isVerifier(String(repeating: "a", count: 42) + "+"))
        #expect(!PKCE.verifies(String(repeating: "a", count: 42), challenge: OAuthFixture.challenge))
    }

    @Test(arguments: [
        "https://claude.ai/api/mcp/auth_callback", "https://connector.example:8443/cb?x=1", "http://127.0.0.1:33418/callback",
        "http://localhost:6274/oauth/callback", "http://[::1]:9000/cb", "cursor://anysphere.cursor-mcp/oauth/callback",
        "com.example.app:/oauth2redirect",
    ])
    func aRedirectURIAClientMayName(uri: String) {
        #expect(RedirectURI.isAllowed(uri))
    }

    @Test(arguments: [
        "", "/callback", "https://", "https:///path", "http://connector.example/callback", "http://192.168.1.2/cb",
        "https://good.example@evil.example/cb", "https://connector.example/cb#fragment", "javascript:alert(1)",
        "data:text/html,hi", "file:///etc/passwd", "JavaScript:alert(1)", "https://connector.example/a b",
        "https://connector.example/\n", "https://connector.example/" + String(repeating: "a", count: 2_000), "1ab://x",
        "http://127.0.0.1.evil.example/cb", "http://localhost.evil.example/cb",
    ])
    func aRedirectURIRefused(uri: String) {
        #expect(!RedirectURI.isAllowed(uri))
    }

    @Test func theRedirectHostIsShownWhole() {
        #expect(RedirectURI.host(ofURI: "https://Claude.AI:8443/api/cb?x") == "claude.ai")
        #expect(RedirectURI.host(ofURI: "https://claude.ai/api/mcp/auth_callback") == "claude.ai")
        #expect(RedirectURI.host(ofURI: "https://evil.example.com.attacker.example/cb") == "evil.example.com.attacker.example")
        #expect(RedirectURI.host(ofURI: "http://[::1]:9000/cb") == "[::1]")
        #expect(RedirectURI.host(ofURI: "cursor://anysphere.cursor-mcp/oauth") == "anysphere.cursor-mcp")
        #expect(RedirectURI.host(ofURI: "com.example.app:/cb") == nil)
    }

    @Test func scopeWordsAreSingleSpaceSeparatedScopeNames() {
        #expect(ScopeSet(words: "inbox tasks:read") == ScopeSet([.tasksRead, .inbox]))
        #expect(ScopeSet(words: "") == ScopeSet([]))
        #expect(ScopeSet(words: "tasks:read  inbox") == nil)
        #expect(ScopeSet(words: "tasks:read admin") == nil)
        #expect(ScopeSet(words: "TASKS:READ") == nil)
        #expect(ScopeSet([.inbox, .tasksRead, .notify]).words == "tasks:read notify inbox")
    }

    @Test func aPublicClientProvesItselfByItsIDAndAConfidentialOneWithItsSecret() async throws {
        let oauth = try await OAuthFixture()
        #expect(try await oauth.clients.authenticate(id: oauth.client.id, secret: nil) == oauth.client)
        await #expect(throws: OAuthRefusal.clientAuthMismatch) { _ = try await oauth.clients.authenticate(id: oauth.client.id, secret: "x") }
        await #expect(throws: OAuthRefusal.clientUnknown) { _ = try await oauth.clients.authenticate(id: "oac_none", secret: nil) }
        let (confidential, secret) = try await oauth.clients.register(name: checked("Server", .clientName),
                                                                      redirectURIs: [OAuthFixture.redirect], authMethod: .clientSecretPost)
        let issued = try #require(secret)
        #expect(issued.text.hasPrefix("mcx_"))
        #expect(try await oauth.clients.authenticate(id: confidential.id, secret: issued.text).id == confidential.id)
        await #expect(throws: OAuthRefusal.clientSecretWrong) {
            _ = try await oauth.clients.authenticate(id: confidential.id, secret: issued.text + "x")
        }
        await #expect(throws: OAuthRefusal.clientAuthMismatch) { _ = try await oauth.clients.authenticate(id: confidential.id, secret: nil) }
        #expect(try await oauth.clients.get(confidential.id)?.redirectURIs == [OAuthFixture.redirect])
    }

    @Test func retentionRemovesOAuthRowsOnceTheyCanDoNothing() async throws {
        let oauth = try await OAuthFixture()
        let live = try await oauth.tokens()
        let idle = try await oauth.clients.register(name: checked("Idle", .clientName), redirectURIs: [OAuthFixture.redirect],
                                                    authMethod: .none).client
        let retention = Retention(store: oauth.test.store, clock: oauth.test.clock, hub: oauth.test.hub)
        // An hour on: the access token expired (its row goes), the grant lives on its refresh token.
        oauth.test.clock.advance(millis: OAuthGrants.accessLifetimeMillis + OAuthGrants.usedCodeKeptMillis)
        while try await retention.step() {}
        #expect(try oauth.test.rowCount("oauth_access_tokens") == 0 && oauth.test.rowCount("oauth_codes") == 0)
        #expect(try await oauth.grants.list(accountID: oauth.account.id).map(\.id) == [live.grantID])
        // Thirty days on: the refresh token expired, so the grant is dead, and both clients are
        // idle: the grant's client goes once its grant went.
        oauth.test.clock.advance(millis: OAuthGrants.refreshLifetimeMillis)
        while try await retention.step() {}
        #expect(try oauth.test.rowCount("oauth_refresh_tokens") == 0 && oauth.test.rowCount("oauth_grants") == 0)
        #expect(try await oauth.clients.get(idle.id) == nil)
        #expect(try await oauth.clients.get(oauth.client.id) == nil)
    }

    @Test func retentionKeepsAClientThatHasAGrant() async throws {
        let oauth = try await OAuthFixture()
        let first = try await oauth.tokens()
        let retention = Retention(store: oauth.test.store, clock: oauth.test.clock, hub: oauth.test.hub)
        // Used within each 30 days: the refreshes keep the grant, and the grant its client.
        var refresh = first.refreshToken
        for _ in 0..<3 {
            oauth.test.clock.advance(millis: 20 * 86_400_000)
            refresh = try await oauth.grants.refresh(token: refresh, client: oauth.client, scopes: nil).refreshToken
            while try await retention.step() {}
        }
        #expect(try await oauth.clients.get(oauth.client.id) != nil)
        #expect(try await oauth.grants.list(accountID: oauth.account.id).count == 1)
    }
}
