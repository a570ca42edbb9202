import Crypto

/// A push message's body as RFC 8291 encrypts it for one subscription: the `aes128gcm`
/// content coding of RFC 8188 with a single record, keyed by ECDH between a key made for this
/// message and the subscription's `p256dh` key, and the subscription's `auth` secret.
///
/// The body is `salt (16) || rs (4, big-endian) || idlen (1) = 65 || the sender's public key
/// (65) || ciphertext`, where the ciphertext seals the plaintext, the delimiter `0x02` (the last
/// record) and zeros up to the padded length.
public enum WebPushMessage {
    /// The record size written in the header: push services take bodies up to 4,096 bytes,
    /// so one record always holds the whole message.
    public static let recordSize = 4096
    /// The header before the ciphertext.
    public static let headerSize = 16 + 4 + 1 + P256.publicKeySize
    /// The most plaintext and padding that fit one record of `recordSize` after the header's
    /// bytes are taken from the 4,096 a push service accepts: 4,096 − 86 − 1 − 16.
    public static let maxPaddedLength = 4096 - headerSize - 1 - AESGCM.tagSize

    /// The encrypted body of `plaintext`, padded with zeros to `paddedLength` (at least the
    /// plaintext's length, at most `maxPaddedLength`), for the subscription whose keys are
    /// `subscriber` and `authSecret` (16 bytes). `sender` and `salt` are made anew for each
    /// message unless given (the RFC's example gives them). Nil when the keys cannot agree.
    public static func encrypt(
        _ plaintext: [UInt8], paddedLength: Int? = nil,
        subscriber: P256.PublicKey, authSecret: [UInt8],
        sender given: P256.PrivateKey? = nil, salt: [UInt8]? = nil
    ) throws(P256.Failure) -> [UInt8] {
        let padded = paddedLength ?? plaintext.count
        precondition(padded >= plaintext.count && padded <= maxPaddedLength, "a Web Push message fits one record of 4,096 bytes")
        precondition(authSecret.count == 16, "a subscription's auth secret is 16 bytes")
        let sender: P256.PrivateKey
        if let given { sender = given } else { sender = try P256.PrivateKey() }
        let salt = salt ?? SecureRandom.bytes(16)
        precondition(salt.count == 16, "the salt is 16 bytes")
        guard let shared = sender.sharedSecret(with: subscriber) else { throw P256.Failure("ECDH failed") }

        // RFC 8291 section 3.4: the input keying material of RFC 8188.
        let keyInfo = Array("WebPush: info".utf8) + [0] + subscriber.bytes + sender.publicKey
        let inputKey = HKDF.derive(salt: authSecret, secret: shared, info: keyInfo, length: 32)
        // RFC 8188 section 2.2 and 2.3: the content encryption key and the nonce.
        let pseudorandomKey = HKDF.extract(salt: salt, secret: inputKey)
        let contentKey = HKDF.expand(key: pseudorandomKey, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        // One record: its sequence number is 0, so the nonce is the derived one as it is.
        let nonce = HKDF.expand(key: pseudorandomKey, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12)

        var record = plaintext
        record.reserveCapacity(padded + 1)
        record.append(0x02)
        record += [UInt8](repeating: 0, count: padded - plaintext.count)
        let size = UInt32(recordSize)
        let header = salt + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + [UInt8(P256.publicKeySize)] + sender.publicKey
        return header + AESGCM.seal(record, key: contentKey, nonce: nonce)
    }
}
