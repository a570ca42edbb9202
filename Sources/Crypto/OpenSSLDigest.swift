import COpenSSL

/// The SHA-256 implementation, fetched from the default provider once.
///
/// OpenSSL 3 resolves the legacy `EVP_sha256()` handle through the provider store on every
/// digest (a locked lookup); an explicitly fetched `EVP_MD` skips that, which the OpenSSL
/// performance notes recommend for repeated use. The fetched object is immutable and
/// reference-counted by OpenSSL, so sharing it between threads is safe; it lives as long as
/// the process.
enum OpenSSLDigest {
    nonisolated(unsafe) static let sha256: OpaquePointer = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()

    static let sha256Size = 32
    static let sha256BlockSize = 64
}
