import COpenSSL

/// NIST P-256 keys inside OpenSSL: ES256 signatures (the APNs provider token, the VAPID token
/// of Web Push) and ECDH (the shared secret of a Web Push message, RFC 8291). The only file of
/// Crypto that holds OpenSSL's key pointers. A private key is never printed; its scalar leaves
/// OpenSSL only when asked for, to be stored.
public enum P256 {
    /// An uncompressed point: `0x04 || x || y`.
    public static let publicKeySize = 65
    /// The private scalar, big-endian, left-padded.
    public static let scalarSize = 32

    public struct Failure: Error, Equatable, Sendable {
        public let message: String
        public init(_ message: String) { self.message = message }
    }

    /// RFC 5915's ECPrivateKey of a prime256v1 scalar without its public key, up to the
    /// scalar: version 1, then the OCTET STRING of 32 bytes. OpenSSL computes the public point
    /// when it reads one (and checks the scalar is in range).
    private static let ecPrivateKeyHead: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20]
    /// The rest: `[0] { OID prime256v1 }`.
    private static let ecPrivateKeyTail: [UInt8] = [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    /// The DER SubjectPublicKeyInfo of a P-256 key up to its 65-byte point (id-ecPublicKey,
    /// prime256v1, a BIT STRING of 66 bytes).
    private static let spkiHead: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08,
        0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    public final class PrivateKey {
        fileprivate let key: OpaquePointer
        /// The public point, uncompressed (65 bytes).
        public let publicKey: [UInt8]

        /// A new key from OpenSSL's random generator.
        public convenience init() throws(Failure) {
            ERR_clear_error()
            defer { ERR_clear_error() }
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw Failure("EC keys are not available") }
            defer { EVP_PKEY_CTX_free(context) }
            var made: OpaquePointer?
            guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
                  EVP_PKEY_generate(context, &made) == 1, let made else {
                throw Failure("a P-256 key could not be made")
            }
            try self.init(adopting: made)
        }

        /// The key of a 32-byte scalar (as `scalar` gives it back); refused unless it is in
        /// 1 ..< n.
        public convenience init(scalar: [UInt8]) throws(Failure) {
            guard scalar.count == P256.scalarSize else { throw Failure("a P-256 private key is 32 bytes") }
            ERR_clear_error()
            defer { ERR_clear_error() }
            var der = P256.ecPrivateKeyHead + scalar + P256.ecPrivateKeyTail
            defer { OPENSSL_cleanse(&der, der.count) }
            let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PrivateKey(EVP_PKEY_EC, nil, &cursor, buffer.count)
            }
            guard let parsed else { throw Failure("not a P-256 private key") }
            try self.init(adopting: parsed)
        }

        /// A PEM private key (`-----BEGIN PRIVATE KEY-----`, PKCS #8, as Apple's `.p8` files;
        /// or `-----BEGIN EC PRIVATE KEY-----`) that must be on P-256.
        public convenience init(pem: [UInt8]) throws(Failure) {
            ERR_clear_error()
            defer { ERR_clear_error() }
            let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
                defer { BIO_free(bio) }
                return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
            }
            guard let parsed else { throw Failure("not a PEM private key") }
            try self.init(adopting: parsed)
        }

        /// Takes `key` over, or frees it and throws when it is not a whole P-256 key pair.
        private init(adopting key: OpaquePointer) throws(Failure) {
            guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256,
                  P256.isPrime256v1(key), P256.isWholeKeyPair(key), let point = P256.point(of: key) else {
                EVP_PKEY_free(key)
                throw Failure("not an EC P-256 key")
            }
            self.key = key
            publicKey = point
        }

        deinit {
            EVP_PKEY_free(key)
        }

        /// The private scalar (32 bytes), to store the key; a secret.
        public var scalar: [UInt8] {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, "priv", &number) == 1, let number else {
                fatalError("OpenSSL gave no scalar for a private key it holds")
            }
            defer { BN_clear_free(number) }
            var out = [UInt8](repeating: 0, count: P256.scalarSize)
            guard BN_bn2binpad(number, &out, Int32(out.count)) == Int32(out.count) else {
                fatalError("a P-256 scalar did not fit 32 bytes")
            }
            return out
        }

        /// The 64-byte `r || s` ES256 signature (ECDSA over SHA-256) of `message`; nil only if
        /// OpenSSL fails.
        public func signature(for message: [UInt8]) -> [UInt8]? {
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

        /// ECDH with `peer`: the x coordinate of the shared point (32 bytes); nil only if
        /// OpenSSL fails.
        public func sharedSecret(with peer: PublicKey) -> [UInt8]? {
            ERR_clear_error()
            defer { ERR_clear_error() }
            guard let context = EVP_PKEY_CTX_new(key, nil) else { return nil }
            defer { EVP_PKEY_CTX_free(context) }
            var length = 32
            var secret = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peer.key) == 1,
                  EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else { return nil }
            return secret
        }
    }

    public final class PublicKey {
        fileprivate let key: OpaquePointer
        /// The point, uncompressed (65 bytes).
        public let bytes: [UInt8]

        /// The key of an uncompressed point; nil unless it is 65 bytes, starts with 0x04 and
        /// lies on the curve (OpenSSL checks that when it reads the key).
        public init?(uncompressed point: [UInt8]) {
            guard point.count == P256.publicKeySize, point[0] == 0x04 else { return nil }
            ERR_clear_error()
            defer { ERR_clear_error() }
            let der = P256.spkiHead + point
            let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            }
            guard let parsed else { return nil }
            guard P256.isPrime256v1(parsed), P256.point(of: parsed) == point else {
                EVP_PKEY_free(parsed)
                return nil
            }
            key = parsed
            bytes = point
        }

        deinit {
            EVP_PKEY_free(key)
        }

        /// True when `signature` (`r || s`, 64 bytes) is this key's ES256 signature of `message`.
        public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            guard signature.count == 64, let der = ECDSASignature.der(fromRaw: signature) else { return false }
            ERR_clear_error()
            defer { ERR_clear_error() }
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
            return der.withUnsafeBufferPointer { sig in
                message.withUnsafeBufferPointer { data in
                    EVP_DigestVerify(context, sig.baseAddress, sig.count, data.baseAddress, data.count) == 1
                }
            }
        }
    }

    private static func isPrime256v1(_ key: OpaquePointer) -> Bool {
        var name = [CChar](repeating: 0, count: 32)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }

    /// OpenSSL's full check of a private key: the scalar in 1 ..< n (a DER key may carry any
    /// 32 bytes) and the public point its multiple of the generator.
    private static func isWholeKeyPair(_ key: OpaquePointer) -> Bool {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        return EVP_PKEY_check(context) == 1
    }

    /// The key's public point, uncompressed.
    private static func point(of key: OpaquePointer) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: publicKeySize)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, "pub", &out, out.count, &length) == 1,
              length == publicKeySize, out[0] == 0x04 else { return nil }
        return out
    }
}
