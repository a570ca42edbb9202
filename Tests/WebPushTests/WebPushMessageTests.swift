import Crypto
import Testing
@testable import WebPush

/// The message encryption against RFC 8291's Appendix A, byte for byte, and opened again the
/// way a browser opens it (RFC 8291 section 3.4 from the receiver's side).
@Suite struct WebPushMessageTests {
    static func b64(_ text: String) -> [UInt8] { Base64.decode(text)! }
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let senderScalar = b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    static let receiverScalar = b64("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
    static let receiverPublic = b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
    static let salt = b64("DGv6ra1nlYgDCS1FRnbzlw")
    static let auth = b64("BTBZMqHH6r4Tts7J_aSIgg")
    static let body = b64("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")

    @Test func theRFCsExampleIsReproducedByteForByte() throws {
        let subscriber = try #require(P256.PublicKey(uncompressed: Self.receiverPublic))
        let sent = try WebPushMessage.encrypt(
            Self.plaintext, subscriber: subscriber, authSecret: Self.auth,
            sender: try P256.PrivateKey(scalar: Self.senderScalar), salt: Self.salt)
        #expect(sent == Self.body)
    }

    @Test func aPaddedMessageOfFreshKeysOpensForItsSubscriberOnly() throws {
        let receiver = try P256.PrivateKey()
        let auth = SecureRandom.bytes(16)
        let subscriber = try #require(P256.PublicKey(uncompressed: receiver.publicKey))
        let message = Array(#"{"title":"Deploy?"}"#.utf8)
        let sent = try WebPushMessage.encrypt(message, paddedLength: 256, subscriber: subscriber, authSecret: auth)
        #expect(sent.count == WebPushMessage.headerSize + 256 + 1 + 16, "the length says nothing of the message's")
        #expect(try Self.open(sent, receiver: receiver, auth: auth) == message)
        #expect(try Self.open(sent, receiver: try P256.PrivateKey(), auth: auth) == nil, "another browser's key")
        #expect(try Self.open(sent, receiver: receiver, auth: SecureRandom.bytes(16)) == nil, "another auth secret")
        let again = try WebPushMessage.encrypt(message, paddedLength: 256, subscriber: subscriber, authSecret: auth)
        #expect(again != sent, "each message has its own salt and sender key")
        #expect(Array(again[0..<16]) != Array(sent[0..<16]))
    }

    @Test func theLargestMessageFitsTheFourKilobytesPushServicesTake() throws {
        let receiver = try P256.PrivateKey()
        let subscriber = try #require(P256.PublicKey(uncompressed: receiver.publicKey))
        let auth = SecureRandom.bytes(16)
        let message = [UInt8](repeating: 0x61, count: WebPushMessage.maxPaddedLength)
        let sent = try WebPushMessage.encrypt(message, subscriber: subscriber, authSecret: auth)
        #expect(sent.count == 4096)
        #expect(try Self.open(sent, receiver: receiver, auth: auth) == message)
    }

    /// The receiver's side: the header read, ECDH with the sender's key from it, the same two
    /// derivations, the record opened and its padding removed up to the delimiter.
    static func open(_ body: [UInt8], receiver: P256.PrivateKey, auth: [UInt8]) throws -> [UInt8]? {
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyLength = Int(body[20])
        guard recordSize >= 18, keyLength == 65 else { return nil }
        let senderPublic = Array(body[21..<(21 + keyLength)])
        let sealed = Array(body[(21 + keyLength)...])
        guard sealed.count <= recordSize, let sender = P256.PublicKey(uncompressed: senderPublic),
              let shared = receiver.sharedSecret(with: sender) else { return nil }
        let info = Array("WebPush: info".utf8) + [0] + receiver.publicKey + senderPublic
        let inputKey = HKDF.derive(salt: auth, secret: shared, info: info, length: 32)
        let prk = HKDF.extract(salt: salt, secret: inputKey)
        let key = HKDF.expand(key: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        let nonce = HKDF.expand(key: prk, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12)
        guard var record = AESGCM.open(sealed, key: key, nonce: nonce) else { return nil }
        while record.last == 0 { record.removeLast() }
        guard record.last == 0x02 else { return nil }
        record.removeLast()
        return record
    }
}
