import COpenSSL

/// Verifies a passkey's signature with OpenSSL: the only file of WebAuthn with OpenSSL's
/// key pointers.
enum SignatureCheck {
    /// The DER SubjectPublicKeyInfo header of a P-256 key (id-ecPublicKey, prime256v1, a BIT
    /// STRING of 66 bytes) before the 65-byte uncompressed point: OpenSSL reads the whole as
    /// a key and checks that the point is on the curve.
    private static let p256Header: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08,
        0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// True when `signature` over `message` verifies with `key`: ES256 takes a DER ECDSA
    /// signature over SHA-256 of the message, Ed25519 a raw 64-byte signature of the message.
    static func verify(_ signature: [UInt8], of message: [UInt8], with key: COSEPublicKey) -> Bool {
        defer { ERR_clear_error() }
        guard let pkey = makeKey(key) else { return false }
        defer { EVP_PKEY_free(pkey) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let digest: OpaquePointer?
        switch key {
        case .es256: digest = EVP_sha256()
        case .ed25519:
            guard signature.count == 64 else { return false }
            digest = nil
        }
        guard EVP_DigestVerifyInit(context, nil, digest, nil, pkey) == 1 else { return false }
        return signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { data in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, data.baseAddress, data.count) == 1
            }
        }
    }

    private static func makeKey(_ key: COSEPublicKey) -> OpaquePointer? {
        switch key {
        case .es256(let point):
            let der = p256Header + point
            return der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            }
        case .ed25519(let raw):
            return raw.withUnsafeBufferPointer { buffer in
                EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, buffer.baseAddress, buffer.count)
            }
        }
    }
}
