import Clock
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `OAuthGrants` on a real PostgreSQL database (`PostgresSessionStore`, the filled store's
/// rows: key `key_1` of `acc_1`, client `oac_1` and its grant `ogr_1`), with the behaviour its
/// SQLite tests check: a consent's code traded once and a second trade revoking the grant, a
/// refresh rotating both tokens and a reused refresh token revoking the grant, revocation by
/// token, a key's grants listed, noted in use and removed.
@Suite struct OAuthGrantsOnPostgresTests {
    static let resource = "https://relay.example/mcp"
    static let redirect = "https://claude.ai/cb"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    /// RFC 7636 Appendix B: the S256 challenge of `verifier`.
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    /// The service over the filled store's copy, what it told of revoked grants, and the
    /// gate's view of its tokens through the same cache.
    final class Connector {
        let db: PostgresSessionStoreTests.Filled
        let clock = ManualClock()
        let credentials = CredentialCache()
        let grants: OAuthGrants
        let authenticator: Authenticator
        let client: OAuthClient
        private(set) var revoked: [String] = []

        init() throws {
            db = try PostgresSessionStoreTests.Filled()
            grants = OAuthGrants(store: db.store, credentials: credentials, clock: clock, random: SystemRandom())
            authenticator = Authenticator(store: db.store, credentials: credentials, clock: clock)
            let clients = OAuthClients(store: db.store, clock: clock, random: SystemRandom())
            client = try #require(try db.run { try await clients.get("oac_1") })
            grants.onRevoked = { [unowned self] _, grantID in revoked.append(grantID) }
        }

        func consent(scopes: ScopeSet = ScopeSet([.tasksRead, .inbox])) -> Consent {
            Consent(accountID: "acc_1", keyID: "key_1", clientID: client.id, scopes: scopes, redirectURI: OAuthGrantsOnPostgresTests.redirect,
                    codeChallenge: OAuthGrantsOnPostgresTests.challenge, resource: OAuthGrantsOnPostgresTests.resource)
        }

        func trade(_ code: String) throws -> IssuedTokens {
            try db.run {
                try await self.grants.exchange(code: code, client: self.client, redirectURI: OAuthGrantsOnPostgresTests.redirect,
                                               verifier: OAuthGrantsOnPostgresTests.verifier)
            }
        }

        func tokens() throws -> IssuedTokens {
            try trade(try db.run { try await self.grants.issueCode(self.consent()) })
        }

        func refresh(_ token: String, scopes: ScopeSet? = nil) throws -> IssuedTokens {
            try db.run { try await self.grants.refresh(token: token, client: self.client, scopes: scopes) }
        }

        /// The grant the gate finds for an access token, nil when the token counts for nothing.
        func grant(of accessToken: String) throws -> String? {
            try db.run {
                try await self.authenticator.authenticate(Substring(accessToken), audience: OAuthGrantsOnPostgresTests.resource)
            }?.grant?.grantID
        }

        func grantIDs(keyID: String? = nil) throws -> [String] {
            try db.run { try await self.grants.list(accountID: "acc_1", keyID: keyID) }.map(\.id)
        }
    }

    @Test func aConsentsCodeIsTradedOnceAndASecondTradeRevokesTheGrantOnPostgreSQL() throws {
        let connector = try Connector()
        let code = try connector.db.run { try await connector.grants.issueCode(connector.consent()) }
        #expect(code.hasPrefix("mcc_"))
        let issued = try connector.trade(code)
        #expect(issued.scopes == ScopeSet([.tasksRead, .inbox]) && issued.expiresIn == 3600)
        #expect(try connector.grant(of: issued.accessToken) == issued.grantID)
        #expect(try connector.grantIDs(keyID: "key_1") == [issued.grantID, "ogr_1"])

        #expect(throws: OAuthRefusal.codeReused(keyID: "key_1", grantID: issued.grantID)) { _ = try connector.trade(code) }
        #expect(connector.revoked == [issued.grantID])
        #expect(try connector.grant(of: issued.accessToken) == nil)
        #expect(throws: OAuthRefusal.refreshUnknown) { _ = try connector.refresh(issued.refreshToken) }
        #expect(try connector.grantIDs() == ["ogr_1"])
        // A consent for a key of another account, or with no client, makes no code.
        #expect(throws: DomainError.notFound("Key not found.")) {
            _ = try connector.db.run {
                try await connector.grants.issueCode(Consent(accountID: "acc_2", keyID: "key_1", clientID: "oac_1", scopes: .all,
                                                             redirectURI: Self.redirect, codeChallenge: Self.challenge,
                                                             resource: Self.resource))
            }
        }
        #expect(throws: OAuthRefusal.clientUnknown) {
            _ = try connector.db.run {
                try await connector.grants.issueCode(Consent(accountID: "acc_1", keyID: "key_1", clientID: "oac_none", scopes: .all,
                                                             redirectURI: Self.redirect, codeChallenge: Self.challenge,
                                                             resource: Self.resource))
            }
        }
        #expect(try connector.db.count("SELECT count(*) AS n FROM oauth_codes") == 2)
    }

    @Test func aRefreshRotatesAndAReusedRefreshTokenRevokesTheGrantOnPostgreSQL() throws {
        let connector = try Connector()
        let first = try connector.tokens()
        connector.clock.advance(millis: 1_000)
        let second = try connector.refresh(first.refreshToken, scopes: ScopeSet([.inbox]))
        #expect(second.grantID == first.grantID && second.scopes == ScopeSet([.inbox]))
        #expect(second.accessToken != first.accessToken && second.refreshToken != first.refreshToken)
        #expect(try connector.grant(of: second.accessToken) == first.grantID)
        #expect(throws: OAuthRefusal.scopeEscalation) { _ = try connector.refresh(second.refreshToken, scopes: ScopeSet([.notify])) }
        // The grant keeps what was approved, and notes the refresh as its use.
        let third = try connector.refresh(second.refreshToken)
        #expect(third.scopes == ScopeSet([.tasksRead, .inbox]))
        let listed = try connector.db.run { try await connector.grants.list(accountID: "acc_1", keyID: "key_1") }
        #expect(listed.first?.lastUsedAt == connector.clock.wallMillis)

        #expect(throws: OAuthRefusal.refreshReused(keyID: "key_1", grantID: first.grantID)) {
            _ = try connector.refresh(first.refreshToken)
        }
        #expect(connector.revoked == [first.grantID])
        #expect(try connector.grant(of: third.accessToken) == nil)
        #expect(throws: OAuthRefusal.refreshUnknown) { _ = try connector.refresh(third.refreshToken) }
        #expect(try connector.grantIDs() == ["ogr_1"])
    }

    @Test func revokingAnAccessTokenEndsItAndARefreshTokenItsGrantOnPostgreSQL() throws {
        let connector = try Connector()
        let first = try connector.tokens()
        let second = try connector.tokens()
        let revoke = { (token: String) in
            try connector.db.run { try await connector.grants.revoke(token: token, client: connector.client) }
        }
        #expect(try connector.grant(of: first.accessToken) == first.grantID)
        try revoke(first.accessToken)
        #expect(try connector.grant(of: first.accessToken) == nil)
        let renewed = try connector.refresh(first.refreshToken)
        #expect(try connector.grant(of: renewed.accessToken) == first.grantID)
        try revoke(second.refreshToken)
        #expect(try connector.grant(of: second.accessToken) == nil)
        // Unknown tokens and a key's secret are left alone without saying so.
        try revoke("mcr_nothing")
        try revoke("mck_" + String(repeating: "k", count: 43))
        #expect(connector.revoked == [second.grantID])
        #expect(try connector.grantIDs() == [first.grantID, "ogr_1"])
    }

    @Test func aKeysGrantsAreListedNotedInUseAndRemovedOnPostgreSQL() throws {
        let connector = try Connector()
        let filled = try #require(try connector.db.run { try await connector.grants.list(accountID: "acc_1", keyID: "key_1") }.first)
        #expect(filled.id == "ogr_1" && filled.clientID == "oac_1" && filled.clientName == "Claude")
        #expect(filled.scopes == ScopeSet(bits: 3) && filled.resource == Self.resource && filled.createdAt == 69 && filled.lastUsedAt == nil)
        #expect(try connector.grantIDs(keyID: "key_2").isEmpty)

        let issued = try connector.tokens()
        guard case .key(let use)? = try connector.db.run({
            try await connector.authenticator.authenticate(Substring(issued.accessToken), audience: Self.resource)
        }) else {
            Issue.record("the access token gave no key principal")
            return
        }
        try connector.db.run { try await connector.grants.recordUse(use) }
        let noted = connector.clock.wallMillis
        #expect(try connector.db.run { try await connector.grants.list(accountID: "acc_1") }.first?.lastUsedAt == noted)

        #expect(throws: DomainError.notFound("Grant not found.")) {
            try connector.db.run { try await connector.grants.delete(accountID: "acc_2", grantID: "ogr_1") }
        }
        for grantID in ["ogr_1", issued.grantID] {
            try connector.db.run { try await connector.grants.delete(accountID: "acc_1", grantID: grantID) }
        }
        #expect(connector.revoked == ["ogr_1", issued.grantID])
        #expect(try connector.grant(of: issued.accessToken) == nil)
        #expect(try connector.grantIDs().isEmpty)
        for table in ["oauth_grants", "oauth_access_tokens", "oauth_refresh_tokens"] {
            #expect(try connector.db.count("SELECT count(*) AS n FROM \(table)") == 0, "\(table)")
        }
    }
}
