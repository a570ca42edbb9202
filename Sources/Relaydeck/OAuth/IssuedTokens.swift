/// What the token endpoint hands a client (RFC 6749 5.1): the secrets exist only here.
public struct IssuedTokens: Sendable {
    public let accessToken: String
    public let refreshToken: String
    /// Seconds the access token works for.
    public let expiresIn: Int64
    /// What the access token may do (the grant's, or fewer asked at refresh).
    public let scopes: ScopeSet
    public let grantID: String
}
