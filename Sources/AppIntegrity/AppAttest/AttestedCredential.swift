/// What a valid attestation proves, and what the account keeps
/// (`app-integrity.md#what-the-server-validates`: "the key ID, the public key, and the counter").
public struct AttestedCredential: Equatable, Sendable {
    /// SHA-256 of the public key, 32 bytes.
    public let keyID: [UInt8]
    /// The uncompressed P-256 point, 65 bytes.
    public let publicKey: [UInt8]
    /// The sign counter, 0 after an attestation; assertions would raise it.
    public let counter: UInt32
}
