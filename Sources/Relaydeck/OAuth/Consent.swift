/// What the person approved on the consent page, for one authorization request: the code
/// issued for it carries all of this to the token endpoint, which checks it again there.
public struct Consent: Sendable {
    public let accountID: String
    /// The key the connector will act as.
    public let keyID: String
    public let clientID: String
    public let scopes: ScopeSet
    /// Exactly as the request sent it; the token request must send the same.
    public let redirectURI: String
    /// PKCE's S256 challenge (RFC 7636): base64url of the verifier's SHA-256.
    public let codeChallenge: String
    public let resource: String

    public init(accountID: String, keyID: String, clientID: String, scopes: ScopeSet, redirectURI: String,
                codeChallenge: String, resource: String) {
        self.accountID = accountID
        self.keyID = keyID
        self.clientID = clientID
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.resource = resource
    }
}
