import Clock
import Crypto
@testable import Relaydeck
import Testing

/// Grants as principals (issue 24): a code traded once becomes a grant acting as its key, with
/// no more than both allow; tokens expire, are bound to their resource, rotate, and a second
/// use of a spent code or refresh token revokes the grant.
@Suite struct OAuthGrantsTests {
    @Test(arguments: StoreKind.allCases)
    func aTradedCodeGivesAnAccessTokenThatActsAsTheKeyWithItsGrant(kind: StoreKind) async throws {
        let oauth = try await OAuthFixture(kind)
        let issued = try await oauth.tokens(scopes: ScopeSet([.tasksRead, .questions]))
        #expect(issued.accessToken.hasPrefix("mco_") && issued.accessToken.utf8.count == 47)
        #expect(issued.refreshToken.hasPrefix("mcr_") && issued.refreshToken.utf8.count == 47)
        #expect(issued.expiresIn == 3600 && issued.scopes == ScopeSet([.tasksRead, .questions]))
        let principal = try await #require(try oauth.principal(issued.accessToken))
        #expect(principal.keyID == oauth.key.id && principal.accountID == oauth.account.id)
        #expect(principal.credentialID == oauth.key.id)
        #expect(principal.scopes == ScopeSet([.tasksRead, .questions]))
        #expect(principal.grant == GrantUse(grantID: issued.grantID, clientName: "Claude", resource: OAuthFixture.resource,
                                            expiresAt: oauth.test.clock.wallMillis + 3_600_000, lastUsedAt: nil))
        let grants = try await oauth.grants.list(accountID: oauth.account.id, keyID: oauth.key.id)
        #expect(grants.map(\.id) == [issued.grantID] && grants[0].clientID == oauth.client.id)
        // Only hashes are stored.
        for (table, token) in [("oauth_access_tokens", issued.accessToken), ("oauth_refresh_tokens", issued.refreshToken)] {
            #expect(try oauth.test.rowCount(table, where: "token_hash = x'\(Hex.encode(SHA256.hash(token)))'") == 1)
        }
    }

    @Test func theGrantActsWithTheScopesBothItAndItsKeyHold() async throws {
        let oauth = try await OAuthFixture(keyScopes: ScopeSet([.tasksRead, .tasksWrite]))
        let issued = try await oauth.tokens(scopes: ScopeSet([.tasksRead, .notify]))
        #expect(try await oauth.principal(issued.accessToken)?.scopes == ScopeSet([.tasksRead]))
        // Narrowing the key holds for the grant's next request, cached or not.
        _ = try await oauth.test.keys.update(accountID: oauth.account.id, keyID: oauth.key.id, label: nil, scopes: ScopeSet([.tasksWrite]))
        #expect(try await oauth.principal(issued.accessToken)?.scopes == ScopeSet([]))
    }

    @Test func aCodeUsedTwiceIsRefusedAndRevokesTheGrantItMade() async throws {
        let oauth = try await OAuthFixture()
        let code = try await oauth.grants.issueCode(oauth.consent())
        let first = try await oauth.grants.exchange(code: code, client: oauth.client, redirectURI: OAuthFixture.redirect,
                                              verifier: OAuthFixture.verifier)
        #expect(try await oauth.principal(first.accessToken) != nil)
        await #expect(throws: OAuthRefusal.codeReused(keyID: oauth.key.id, grantID: first.grantID)) {
            _ = try await oauth.grants.exchange(code: code, client: oauth.client, redirectURI: OAuthFixture.redirect,
                                          verifier: OAuthFixture.verifier)
        }
        #expect(try await oauth.principal(first.accessToken) == nil)
        await #expect(throws: OAuthRefusal.refreshUnknown) {
            _ = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: nil)
        }
        #expect(oauth.revoked == [first.grantID])
        #expect(try await oauth.grants.list(accountID: oauth.account.id).isEmpty)
    }

    @Test func aCodeIsRefusedForAnotherClientRedirectOrVerifierAndAfterAMinute() async throws {
        let oauth = try await OAuthFixture()
        let other = try await oauth.clients.register(name: checked("Other", .clientName), redirectURIs: [OAuthFixture.redirect],
                                                     authMethod: .none).client
        let code = try await oauth.grants.issueCode(oauth.consent())
        await #expect(throws: OAuthRefusal.codeForAnotherClient) {
            _ = try await oauth.grants.exchange(code: code, client: other, redirectURI: OAuthFixture.redirect, verifier: OAuthFixture.verifier)
        }
        await #expect(throws: OAuthRefusal.redirectMismatch) {
            _ = try await oauth.grants.exchange(code: code, client: oauth.client, redirectURI: OAuthFixture.redirect + "/",
                                          verifier: OAuthFixture.verifier)
        }
        await #expect(throws: OAuthRefusal.verifierWrong) {
            _ = try await oauth.grants.exchange(code: code, client: oauth.client, redirectURI: OAuthFixture.redirect,
                                          verifier: String(OAuthFixture.verifier.reversed()))
        }
        await #expect(throws: OAuthRefusal.codeUnknown) {
            _ = try await oauth.grants.exchange(code: "mcc_" + String(repeating: "a", count: 43), client: oauth.client,
                                          redirectURI: OAuthFixture.redirect, verifier: OAuthFixture.verifier)
        }
        oauth.test.clock.advance(millis: 60_000)
        await #expect(throws: OAuthRefusal.codeUnknown) {
            _ = try await oauth.grants.exchange(code: code, client: oauth.client, redirectURI: OAuthFixture.redirect,
                                          verifier: OAuthFixture.verifier)
        }
        #expect(try oauth.test.rowCount("oauth_grants") == 0)
    }

    @Test func anAccessTokenStopsAfterAnHourAndCountsOnlyForItsResource() async throws {
        let oauth = try await OAuthFixture()
        let issued = try await oauth.tokens()
        #expect(try await oauth.principal(issued.accessToken) != nil)
        #expect(try await oauth.principal(issued.accessToken, audience: "https://other.example/mcp") == nil)
        #expect(try await oauth.principal(issued.accessToken, audience: nil) == nil)
        oauth.test.clock.advance(millis: 3_600_000 - 1)
        #expect(try await oauth.principal(issued.accessToken) != nil)
        oauth.test.clock.advance(millis: 1)
        // Refused from the cache too, where the first calls put it.
        #expect(try await oauth.principal(issued.accessToken) == nil)
    }

    @Test func aRefreshRotatesBothTokensAndTheOldAccessTokenLivesOutItsHour() async throws {
        let oauth = try await OAuthFixture()
        let first = try await oauth.tokens()
        oauth.test.clock.advance(millis: 1_000)
        let second = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: nil)
        #expect(second.grantID == first.grantID && second.scopes == .all)
        #expect(second.accessToken != first.accessToken && second.refreshToken != first.refreshToken)
        #expect(try await oauth.principal(second.accessToken)?.grant?.grantID == first.grantID)
        #expect(try await oauth.principal(first.accessToken) != nil)
        let third = try await oauth.grants.refresh(token: second.refreshToken, client: oauth.client, scopes: nil)
        #expect(try await oauth.principal(third.accessToken) != nil)
    }

    @Test func aRefreshTokenUsedTwiceRevokesTheWholeGrant() async throws {
        let oauth = try await OAuthFixture()
        let first = try await oauth.tokens()
        let second = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: nil)
        await #expect(throws: OAuthRefusal.refreshReused(keyID: oauth.key.id, grantID: first.grantID)) {
            _ = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: nil)
        }
        #expect(try await oauth.principal(first.accessToken) == nil)
        #expect(try await oauth.principal(second.accessToken) == nil)
        await #expect(throws: OAuthRefusal.refreshUnknown) {
            _ = try await oauth.grants.refresh(token: second.refreshToken, client: oauth.client, scopes: nil)
        }
        #expect(oauth.revoked == [first.grantID])
        #expect(try oauth.test.rowCount("oauth_refresh_tokens") == 0 && oauth.test.rowCount("oauth_access_tokens") == 0)
    }

    @Test func aRefreshMayNarrowTheScopesButNeverWidenThem() async throws {
        let oauth = try await OAuthFixture()
        let first = try await oauth.tokens(scopes: ScopeSet([.tasksRead, .inbox]))
        await #expect(throws: OAuthRefusal.scopeEscalation) {
            _ = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: ScopeSet([.tasksRead, .notify]))
        }
        let narrow = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: ScopeSet([.inbox]))
        #expect(narrow.scopes == ScopeSet([.inbox]))
        #expect(try await oauth.principal(narrow.accessToken)?.scopes == ScopeSet([.inbox]))
        // The grant keeps what was approved: the next refresh may ask for all of it again.
        let again = try await oauth.grants.refresh(token: narrow.refreshToken, client: oauth.client, scopes: nil)
        #expect(again.scopes == ScopeSet([.tasksRead, .inbox]))
    }

    @Test func aRefreshTokenIsRefusedToAnotherClientAndAfterThirtyDays() async throws {
        let oauth = try await OAuthFixture()
        let other = try await oauth.clients.register(name: checked("Other", .clientName), redirectURIs: [OAuthFixture.redirect],
                                                     authMethod: .none).client
        let first = try await oauth.tokens()
        await #expect(throws: OAuthRefusal.refreshForAnotherClient) {
            _ = try await oauth.grants.refresh(token: first.refreshToken, client: other, scopes: nil)
        }
        oauth.test.clock.advance(millis: OAuthGrants.refreshLifetimeMillis)
        await #expect(throws: OAuthRefusal.refreshUnknown) {
            _ = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: nil)
        }
    }

    @Test func revokingARefreshTokenEndsTheGrantAndAnAccessTokenOnlyItself() async throws {
        let oauth = try await OAuthFixture()
        let first = try await oauth.tokens()
        let second = try await oauth.tokens()
        #expect(try await oauth.principal(first.accessToken) != nil)
        try await oauth.grants.revoke(token: first.accessToken, client: oauth.client)
        #expect(try await oauth.principal(first.accessToken) == nil)
        let renewed = try await oauth.grants.refresh(token: first.refreshToken, client: oauth.client, scopes: nil)
        #expect(try await oauth.principal(renewed.accessToken) != nil)
        try await oauth.grants.revoke(token: second.refreshToken, client: oauth.client)
        #expect(try await oauth.principal(second.accessToken) == nil)
        #expect(oauth.revoked == [second.grantID])
        #expect(try await oauth.grants.list(accountID: oauth.account.id).map(\.id) == [first.grantID])
    }

    @Test func revokingATokenOfAnotherClientOrNoTokenChangesNothing() async throws {
        let oauth = try await OAuthFixture()
        let other = try await oauth.clients.register(name: checked("Other", .clientName), redirectURIs: [OAuthFixture.redirect],
                                                     authMethod: .none).client
        let issued = try await oauth.tokens()
        try await oauth.grants.revoke(token: issued.refreshToken, client: other)
        try await oauth.grants.revoke(token: issued.accessToken, client: other)
        try await oauth.grants.revoke(token: "mcr_nothing", client: oauth.client)
        try await oauth.grants.revoke(token: oauth.keySecret.text, client: oauth.client)
        #expect(try await oauth.principal(issued.accessToken) != nil)
        #expect(try await oauth.test.authenticator.authenticate(Substring(oauth.keySecret.text)) != nil)
        #expect(oauth.revoked.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func deletingTheKeyRemovesItsGrantsAndStopsTheirTokens(kind: StoreKind) async throws {
        let oauth = try await OAuthFixture(kind)
        let issued = try await oauth.tokens()
        let pending = try await oauth.grants.issueCode(oauth.consent())
        #expect(try await oauth.principal(issued.accessToken) != nil)
        try await oauth.test.keys.delete(accountID: oauth.account.id, keyID: oauth.key.id)
        #expect(try await oauth.principal(issued.accessToken) == nil)
        for table in ["oauth_grants", "oauth_access_tokens", "oauth_refresh_tokens", "oauth_codes"] {
            #expect(try oauth.test.rowCount(table) == 0, "\(table)")
        }
        await #expect(throws: OAuthRefusal.codeUnknown) {
            _ = try await oauth.grants.exchange(code: pending, client: oauth.client, redirectURI: OAuthFixture.redirect,
                                          verifier: OAuthFixture.verifier)
        }
    }

    @Test func deletingTheAccountRemovesEveryGrant() async throws {
        let oauth = try await OAuthFixture()
        let issued = try await oauth.tokens()
        try await oauth.test.accounts.delete(oauth.account.id)
        #expect(try await oauth.principal(issued.accessToken) == nil)
        #expect(try oauth.test.rowCount("oauth_grants") == 0 && oauth.test.rowCount("oauth_refresh_tokens") == 0)
    }

    @Test func removingAGrantStopsItsTokensAndAnotherAccountCannot() async throws {
        let oauth = try await OAuthFixture()
        let issued = try await oauth.tokens()
        let (stranger, _) = try await oauth.test.accounts.create()
        await #expect(throws: DomainError.notFound("Grant not found.")) {
            try await oauth.grants.delete(accountID: stranger.id, grantID: issued.grantID)
        }
        try await oauth.grants.delete(accountID: oauth.account.id, grantID: issued.grantID)
        #expect(try await oauth.principal(issued.accessToken) == nil)
        #expect(oauth.revoked == [issued.grantID])
    }

    @Test func aCodeNeedsAKeyOfTheAccountAKnownClientAndAScope() async throws {
        let oauth = try await OAuthFixture()
        let (stranger, _) = try await oauth.test.accounts.create()
        let foreign = Consent(accountID: stranger.id, keyID: oauth.key.id, clientID: oauth.client.id, scopes: .all,
                              redirectURI: OAuthFixture.redirect, codeChallenge: OAuthFixture.challenge, resource: OAuthFixture.resource)
        await #expect(throws: DomainError.notFound("Key not found.")) { _ = try await oauth.grants.issueCode(foreign) }
        let unknown = Consent(accountID: oauth.account.id, keyID: oauth.key.id, clientID: "oac_nothing", scopes: .all,
                              redirectURI: OAuthFixture.redirect, codeChallenge: OAuthFixture.challenge, resource: OAuthFixture.resource)
        await #expect(throws: OAuthRefusal.clientUnknown) { _ = try await oauth.grants.issueCode(unknown) }
        await #expect(throws: Keys.noScopeError) { _ = try await oauth.grants.issueCode(oauth.consent(scopes: ScopeSet([]))) }
        #expect(try oauth.test.rowCount("oauth_codes") == 0)
    }

    @Test func aKeyHoldsTwentyGrantsAtMost() async throws {
        let oauth = try await OAuthFixture()
        for _ in 0..<OAuthGrants.maxPerKey { _ = try await oauth.tokens() }
        await #expect(throws: OAuthGrants.fullError) { _ = try await oauth.grants.issueCode(oauth.consent()) }
    }

    @Test func aGrantsUseIsNotedOnceAMinute() async throws {
        let oauth = try await OAuthFixture()
        let issued = try await oauth.tokens()
        guard case .key(let use)? = try await oauth.principal(issued.accessToken) else { Issue.record("no key principal"); return }
        try await oauth.grants.recordUse(use)
        let noted = oauth.test.clock.wallMillis
        #expect(try await oauth.grants.list(accountID: oauth.account.id)[0].lastUsedAt == noted)
        guard case .key(let cached)? = try await oauth.principal(issued.accessToken) else { return }
        #expect(cached.grant?.lastUsedAt == noted)
        oauth.test.clock.advance(millis: 59_000)
        try await oauth.grants.recordUse(cached)
        #expect(try await oauth.grants.list(accountID: oauth.account.id)[0].lastUsedAt == noted)
    }
}
