import COpenSSL

/// SHA-256 (FIPS 180-4) through OpenSSL's EVP one-shot digest.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: OpenSSLDigest.sha256Size) { out, initialized in
            var length: UInt32 = 0
            let ok = EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, OpenSSLDigest.sha256, nil)
            // Fails only when OpenSSL cannot allocate a context; a wrong digest must never be returned.
            guard ok == 1, length == OpenSSLDigest.sha256Size else { fatalError("EVP_Digest(SHA-256) failed") }
            initialized = Int(length)
        }
    }

    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The 32-byte digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}
