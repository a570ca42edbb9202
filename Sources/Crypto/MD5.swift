import COpenSSL

/// MD5 (RFC 1321), for one protocol that still asks for it: PostgreSQL's `md5` password
/// exchange (`md5` + hex(MD5(hex(MD5(password + user)) + salt))). Nothing here relies on MD5
/// for integrity; use `SHA256` for anything new.
public enum MD5 {
    /// The 16-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { input in
            [UInt8](unsafeUninitializedCapacity: 16) { out, initialized in
                var length: UInt32 = 0
                // EVP_md5 is in OpenSSL 3's default provider (it is not a "legacy" digest).
                let ok = EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_md5(), nil)
                guard ok == 1, length == 16 else { fatalError("EVP_Digest(MD5) failed") }
                initialized = 16
            }
        }
    }
}
