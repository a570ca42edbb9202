import COpenSSL

/// HMAC (RFC 2104) keyed-hash message authentication.
public enum HMAC {
    /// HMAC-SHA-256 of `message` under `key`; 32 bytes. A key longer than the 64-byte block
    /// is hashed first, as RFC 2104 says.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                sha256(key: key, message: message)
            }
        }
    }

    // Built on the prefetched EVP_MD rather than OpenSSL's one-shot `HMAC()`: in OpenSSL 3
    // that call fetches the MAC and the digest by name and builds a parameter list each
    // time, which made it about three times slower for the short messages we sign (a TOTP
    // check computes three HMACs per request).
    static func sha256(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> [UInt8] {
        let blockSize = OpenSSLDigest.sha256BlockSize
        let digestSize = OpenSSLDigest.sha256Size
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: blockSize + digestSize) { scratch in
            let pad = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(scratch)[0..<blockSize])
            let inner = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(scratch)[blockSize...])
            pad.initializeMemory(as: UInt8.self, repeating: 0)
            if key.count > blockSize {
                digest(context, key, into: pad)
            } else if key.count > 0 {
                pad.copyMemory(from: key)
            }
            for i in 0..<blockSize { pad[i] ^= 0x36 }
            digest(context, UnsafeRawBufferPointer(pad), message, into: inner)
            // ipad ^ opad == 0x36 ^ 0x5c: turn the inner pad into the outer one in place.
            for i in 0..<blockSize { pad[i] ^= 0x36 ^ 0x5c }
            let result = [UInt8](unsafeUninitializedCapacity: digestSize) { out, initialized in
                digest(context, UnsafeRawBufferPointer(pad), UnsafeRawBufferPointer(inner), into: UnsafeMutableRawBufferPointer(out))
                initialized = digestSize
            }
            // The pads are the key in disguise; leave nothing of it on the stack.
            OPENSSL_cleanse(scratch.baseAddress, blockSize + digestSize)
            return result
        }
    }

    /// SHA-256 of `first` followed by `second`, written to the start of `output` (32 bytes or more).
    private static func digest(
        _ context: OpaquePointer,
        _ first: UnsafeRawBufferPointer,
        _ second: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        into output: UnsafeMutableRawBufferPointer
    ) {
        var length: UInt32 = 0
        let ok = EVP_DigestInit_ex2(context, OpenSSLDigest.sha256, nil) == 1
            && EVP_DigestUpdate(context, first.baseAddress, first.count) == 1
            && EVP_DigestUpdate(context, second.baseAddress, second.count) == 1
            && EVP_DigestFinal_ex(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
        guard ok, length == OpenSSLDigest.sha256Size else { fatalError("SHA-256 digest failed") }
    }
}
