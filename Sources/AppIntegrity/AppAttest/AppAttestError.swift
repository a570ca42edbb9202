/// Why an attestation was refused, one case per check of
/// `app-integrity.md#what-the-server-validates` (in its order) and for input that cannot be
/// read. The API answers each with the same `401 attestation_invalid`; the case is for the log
/// and the tests.
public enum AppAttestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The object is not CBOR, or lacks a field, or a field has the wrong type or size.
    case malformed(String)
    /// `fmt` is not `apple-appattest`.
    case wrongFormat
    /// Step 1: the `x5c` chain does not lead to the pinned root.
    case untrustedChain
    /// Step 1: a certificate is not valid at the time of the request.
    case certificateOutsideValidity
    /// Step 2: the credential certificate's nonce is missing or is not SHA-256(authData || clientDataHash).
    case nonceMismatch
    /// Step 3: the key ID is not SHA-256 of the credential certificate's public key.
    case keyIDMismatch
    /// Step 4: the RP ID hash is not SHA-256 of any configured app ID.
    case appIDMismatch
    /// Step 5: the counter is not 0.
    case counterNotZero
    /// Step 6: the `aaguid` is not the configured environment's.
    case environmentMismatch
    /// Step 7: the credential ID is not the key ID.
    case credentialIDMismatch
    /// Step 8: `apple_validation_category_01` is present and not 1 to 6.
    case validationCategoryRefused
    /// The COSE key of the authenticator data is not the credential certificate's key.
    case publicKeyMismatch

    public var description: String {
        switch self {
        case .malformed(let what): "malformed attestation: \(what)"
        case .wrongFormat: "fmt is not apple-appattest"
        case .untrustedChain: "the certificate chain does not lead to the App Attest root"
        case .certificateOutsideValidity: "a certificate is not valid at the time of the request"
        case .nonceMismatch: "the nonce does not match"
        case .keyIDMismatch: "the key ID is not the hash of the certificate's key"
        case .appIDMismatch: "the RP ID hash is not one of a configured app ID"
        case .counterNotZero: "the counter is not 0"
        case .environmentMismatch: "the aaguid is not the configured environment's"
        case .credentialIDMismatch: "the credential ID is not the key ID"
        case .validationCategoryRefused: "apple_validation_category_01 is not 1 to 6"
        case .publicKeyMismatch: "the COSE key is not the certificate's key"
        }
    }
}
