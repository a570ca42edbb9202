/// Why a passkey registration or sign-in was refused, one case per check. The API answers
/// every one the same way (a sign-in that fails says no more than `401`); the case is for
/// the tests.
public enum WebAuthnError: Error, Equatable, Sendable {
    /// A field is missing, of the wrong type or size, or not CBOR / JSON where it must be.
    case malformed(String)
    /// `clientDataJSON.type` is not `webauthn.create` (registration) or `webauthn.get` (sign-in).
    case wrongType
    /// `clientDataJSON.challenge` is not the challenge the server gave.
    case wrongChallenge
    /// `clientDataJSON.origin` is not the server's origin, or the call was cross-origin.
    case wrongOrigin
    /// The RP ID hash of the authenticator data is not SHA-256 of the server's RP ID.
    case wrongRelyingParty
    /// The user-present flag is not set.
    case userNotPresent
    /// The user-verified flag is not set (the server asks for `userVerification: required`).
    case userNotVerified
    /// The public key is not ES256 on P-256 or Ed25519.
    case unsupportedKey
    /// The signature does not verify with the passkey's public key.
    case badSignature
    /// The sign counter did not increase (a cloned authenticator, or a replayed assertion).
    case counterNotIncreased
}
