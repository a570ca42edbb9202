/// Why the authorization server refuses a code, a refresh token or a client: the domain's
/// reasons, which the API's OAuth catalogue turns into RFC 6749 5.2 answers (`invalid_grant`,
/// `invalid_client`, `invalid_scope`) in one place.
public enum OAuthRefusal: Error, Equatable, Sendable {
    /// No such client, or a client that must prove itself and did not.
    case clientUnknown
    case clientSecretWrong
    /// A public client sent a secret, or a confidential one sent none.
    case clientAuthMismatch
    /// Unknown, or expired.
    case codeUnknown
    /// Traded already: the grant made from it (of that key) is revoked.
    case codeReused(keyID: String, grantID: String)
    case codeForAnotherClient
    case redirectMismatch
    case verifierWrong
    /// Unknown, expired, or its grant revoked.
    case refreshUnknown
    /// Rotated already: a copy was used, and the grant (of that key) is revoked.
    case refreshReused(keyID: String, grantID: String)
    case refreshForAnotherClient
    /// Scopes beyond the grant's asked at refresh.
    case scopeEscalation
}
