/// The App Attest key an account was made with (`app-integrity.md#what-the-server-validates`:
/// "The server keeps the key ID, the public key, and the counter with the account").
public struct AttestedKey: Equatable, Sendable {
    /// SHA-256 of the public key, 32 bytes.
    public let keyID: [UInt8]
    /// The uncompressed P-256 point.
    public let publicKey: [UInt8]
    /// The sign counter: 0 after the attestation.
    public let counter: Int64

    public init(keyID: [UInt8], publicKey: [UInt8], counter: Int64) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.counter = counter
    }
}
