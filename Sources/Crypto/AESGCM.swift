import COpenSSL

/// AES-128-GCM through OpenSSL (the cipher of Web Push's `aes128gcm` content coding, RFC
/// 8188): a 16-byte key, a 12-byte nonce, a 16-byte tag after the ciphertext.
public enum AESGCM {
    public static let keySize = 16
    public static let nonceSize = 12
    public static let tagSize = 16

    /// `plaintext` sealed: the ciphertext followed by the tag.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        precondition(key.count == keySize && nonce.count == nonceSize, "AES-128-GCM takes a 16-byte key and a 12-byte nonce")
        guard let context = EVP_CIPHER_CTX_new() else { fatalError("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context); ERR_clear_error() }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        var written: Int32 = 0
        var last: Int32 = 0
        let ok = EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1
            && plaintext.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { output in
                    EVP_EncryptUpdate(context, output.baseAddress, &written, input.baseAddress, Int32(input.count)) == 1
                        && EVP_EncryptFinal_ex(context, output.baseAddress.map { $0 + Int(written) }, &last) == 1
                        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), output.baseAddress.map { $0 + plaintext.count }) == 1
                }
            }
        guard ok, Int(written + last) == plaintext.count else { fatalError("AES-128-GCM sealing failed") }
        return out
    }

    /// The plaintext of `sealed` (ciphertext and tag); nil when the tag does not match.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        guard key.count == keySize, nonce.count == nonceSize, sealed.count >= tagSize else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { fatalError("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context); ERR_clear_error() }
        let length = sealed.count - tagSize
        var tag = Array(sealed[length...])
        var out = [UInt8](repeating: 0, count: max(length, 1))
        var written: Int32 = 0
        var last: Int32 = 0
        let ok = EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1
            && sealed.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { output in
                    EVP_DecryptUpdate(context, output.baseAddress, &written, input.baseAddress, Int32(length)) == 1
                        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag) == 1
                        && EVP_DecryptFinal_ex(context, output.baseAddress.map { $0 + Int(written) }, &last) == 1
                }
            }
        guard ok, Int(written + last) == length else { return nil }
        return Array(out[0..<length])
    }
}
