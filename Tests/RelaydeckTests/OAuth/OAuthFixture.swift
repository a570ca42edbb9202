import Clock
@testable import Relaydeck
import Testing

/// A store with an account, a key, a public client and the OAuth services over them.
final class OAuthFixture {
    static let resource = "https://relay.example/mcp"
    static let redirect = "https://connector.example/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    /// RFC 7636 Appendix B: the S256 challenge of `verifier`.
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    let test: TestStore
    let clients: OAuthClients
    let grants: OAuthGrants
    let account: Account
    let key: Key
    let keySecret: Secret
    let client: OAuthClient
    /// The grants `onRevoked` announced, in order.
    private(set) var revoked: [String] = []

    init(_ kind: StoreKind = .memory, keyScopes: ScopeSet = .all) async throws {
        test = try TestStore(kind)
        clients = OAuthClients(store: test.store, clock: test.clock, random: test.random)
        grants = OAuthGrants(store: test.store, clock: test.clock, random: test.random)
        (account, _) = try await test.accounts.create()
        (key, keySecret) = try await test.keys.create(accountID: account.id, label: checked("Connector"), scopes: keyScopes)
        client = try await clients.register(name: checked("Claude", .clientName), redirectURIs: [Self.redirect], authMethod: .none).client
        grants.onRevoked = { [unowned self] _, grantID in revoked.append(grantID) }
    }

    func consent(scopes: ScopeSet = .all, client: OAuthClient? = nil) -> Consent {
        Consent(accountID: account.id, keyID: key.id, clientID: (client ?? self.client).id, scopes: scopes,
                redirectURI: Self.redirect, codeChallenge: Self.challenge, resource: Self.resource)
    }

    /// A code traded as the client would.
    func tokens(scopes: ScopeSet = .all) async throws -> IssuedTokens {
        let code = try await grants.issueCode(consent(scopes: scopes))
        return try await grants.exchange(code: code, client: client, redirectURI: Self.redirect, verifier: Self.verifier)
    }

    func principal(_ accessToken: String, audience: String? = OAuthFixture.resource) async throws -> Principal? {
        try await test.authenticator.authenticate(Substring(accessToken), audience: audience)
    }
}
