import COpenSSL

/// Whether `a` and `b` hold the same bytes, in time that depends only on their length.
///
/// Lengths are compared first and a mismatch returns at once: the length of a token, code
/// or MAC is public. Use this for every comparison against a secret value.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    // CRYPTO_memcmp is written so the compiler cannot turn it into an early-exit loop.
    return a.withUnsafeBytes { a in
        b.withUnsafeBytes { b in
            CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
        }
    }
}
