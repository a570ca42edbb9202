@testable import API
import JSON
import Relaydeck
import Testing

/// An API with OAuth on (`PUBLIC_URL` set), an account with a key, a public client, and the
/// consent step done through the domain (the authorization page comes in a later slice), so
/// the token endpoint and the credential path are tested as a connector meets them.
final class OAuthHarness {
    static let origin = "https://relay.example"
    static let resource = origin + "/mcp"
    static let redirect = "https://connector.example/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let form = ("Content-Type", "application/x-www-form-urlencoded")

    let api: APIHarness
    let token: String
    let key: (id: String, secret: String)
    let accountID: String
    let client: OAuthClient

    init(publicOrigin: String? = OAuthHarness.origin) async throws {
        var configuration = APIConfiguration()
        configuration.publicOrigin = publicOrigin
        api = try APIHarness(configuration: configuration)
        (accountID, token) = try api.createAccount()
        key = try api.createKey(token: token, label: "Connector")
        client = try await Self.register(api, "Claude")
    }

    static func register(_ api: APIHarness, _ name: String, method: OAuthClient.AuthMethod = .none) async throws -> OAuthClient {
        let checked = try TextRule.clientName.check(name).get()
        return try await api.services.oauthClients.register(name: checked, redirectURIs: [redirect], authMethod: method).client
    }

    /// A code for what a person approved.
    func code(scopes: ScopeSet = .all, client: OAuthClient? = nil) async throws -> String {
        try await api.services.oauthGrants.issueCode(Consent(
            accountID: accountID, keyID: key.id, clientID: (client ?? self.client).id, scopes: scopes,
            redirectURI: Self.redirect, codeChallenge: Self.challenge, resource: Self.resource))
    }

    func post(_ path: String, _ body: String, headers: [(String, String)] = [OAuthHarness.form]) throws -> Answer {
        try api.send("POST", path, headers, body: body)
    }

    /// The code traded at the token endpoint: the answer's JSON.
    func tokens(scopes: ScopeSet = .all) async throws -> JSON {
        let answer = try post("/oauth/token", "grant_type=authorization_code&code=\(try await code(scopes: scopes))"
            + "&redirect_uri=\(Self.redirect)&code_verifier=\(Self.verifier)&client_id=\(client.id)")
        try #require(answer.status == 200)
        return try answer.json()
    }
}

/// RFC 6749 5.2's body.
func oauthErrorBody(_ code: String, _ description: String) -> String {
    #"{"error":"\#(code)","error_description":"\#(description)"}"#
}
