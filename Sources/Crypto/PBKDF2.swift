import COpenSSL

/// PBKDF2 with HMAC-SHA-256 (RFC 8018 section 5.2), as SCRAM-SHA-256 salts a password
/// (RFC 7677: `SaltedPassword := Hi(password, salt, i)` is PBKDF2 with one block).
public enum PBKDF2 {
    /// `length` bytes derived from `password` and `salt` with `iterations` rounds (1 or more).
    /// The cost grows with `iterations`: a caller that takes the count from a peer bounds it.
    public static func sha256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32) -> [UInt8] {
        precondition(iterations >= 1 && iterations <= Int(Int32.max), "PBKDF2 needs 1 to 2^31 - 1 iterations")
        precondition(length >= 1, "PBKDF2 gives at least one byte")
        return password.withUnsafeBytes { password in
            salt.withUnsafeBytes { salt in
                [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
                    let ok = PKCS5_PBKDF2_HMAC(
                        password.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(password.count),
                        salt.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(salt.count),
                        Int32(iterations), OpenSSLDigest.sha256, Int32(length), out.baseAddress)
                    // Fails only when OpenSSL cannot allocate; a wrong key must never be returned.
                    guard ok == 1 else { fatalError("PKCS5_PBKDF2_HMAC failed") }
                    initialized = length
                }
            }
        }
    }
}
