import COpenSSL

/// ECDSA P-256 with SHA-256 (JWS `ES256`) with the provider key of the APNs `.p8` file: the
/// one place the APNs target calls OpenSSL directly. The key lives inside OpenSSL and is
/// never copied back out or printed.
final class ES256Signer {
    private let key: OpaquePointer

    /// `pem`: PKCS #8 (`-----BEGIN PRIVATE KEY-----`), as Apple hands out `.p8` files.
    init(privateKeyPEM pem: [UInt8]) throws(APNsConfigurationError) {
        ERR_clear_error()
        let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let parsed else {
            throw APNsConfigurationError("the APNs private key is not a PEM private key (PKCS #8, as in the .p8 file)")
        }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC, EVP_PKEY_get_bits(parsed) == 256 else {
            EVP_PKEY_free(parsed)
            throw APNsConfigurationError("the APNs private key is not an EC P-256 key")
        }
        key = parsed
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The 64-byte `r || s` signature of `message`; nil only if OpenSSL fails.
    func sign(_ message: [UInt8]) -> [UInt8]? {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { return nil }
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        let signed = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &der, &length, input.baseAddress, input.count)
        }
        guard signed == 1 else { return nil }
        return ECDSASignature.raw(fromDER: Array(der[0..<length]))
    }
}
