/// A passkey's public key from its COSE_Key (RFC 9052 section 7, RFC 9053): the two kinds the
/// server offers in `pubKeyCredParams`.
public enum COSEPublicKey: Equatable, Sendable {
    /// ES256: ECDSA on P-256 with SHA-256 (kty 2 EC2, alg -7, crv 1); the uncompressed point.
    case es256(point: [UInt8])
    /// EdDSA with Ed25519 (kty 1 OKP, alg -8, crv 6); the 32-byte public key.
    case ed25519(publicKey: [UInt8])

    /// Reads the COSE_Key map; anything but the two supported kinds is `unsupportedKey`.
    public init(_ key: CBOR) throws(WebAuthnError) {
        guard case .map = key else { throw .malformed("the public key is not a COSE map") }
        let kty = key[label: 1]?.integerValue
        let alg = key[label: 3]?.integerValue
        let crv = key[label: -1]?.integerValue
        switch (kty, alg, crv) {
        case (2, -7, 1):
            guard let x = key[label: -2]?.bytesValue, let y = key[label: -3]?.bytesValue, x.count == 32, y.count == 32 else {
                throw .malformed("the EC2 key's x or y is not 32 bytes")
            }
            self = .es256(point: [0x04] + x + y)
        case (1, -8, 6):
            guard let x = key[label: -2]?.bytesValue, x.count == 32 else { throw .malformed("the OKP key's x is not 32 bytes") }
            self = .ed25519(publicKey: x)
        default:
            throw .unsupportedKey
        }
    }

    /// Reads COSE_Key bytes as stored at registration.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let key: CBOR
        do {
            key = try CBORDecoder.decode(bytes)
        } catch {
            throw .malformed("the public key is not CBOR")
        }
        try self.init(key)
    }
}
