import Testing
@testable import Crypto

/// P-256 keys against RFC 8291's Appendix A (a fixed sender key, a fixed receiver key and
/// their ECDH secret), and as an attacker would hand them in.
@Suite struct P256Tests {
    static func b64(_ text: String) -> [UInt8] { Base64.decode(text)! }
    static let senderScalar = b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    static let senderPublic = b64("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    static let receiverScalar = b64("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
    static let receiverPublic = b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
    static let ecdhSecret = b64("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs")

    @Test func aScalarGivesItsPublicPointAndBackTheSameScalar() throws {
        let key = try P256.PrivateKey(scalar: Self.senderScalar)
        #expect(key.publicKey == Self.senderPublic)
        #expect(key.scalar == Self.senderScalar)
    }

    @Test func bothSidesOfECDHReachRFC8291sSecret() throws {
        let sender = try P256.PrivateKey(scalar: Self.senderScalar)
        let receiver = try P256.PrivateKey(scalar: Self.receiverScalar)
        let receiverPublic = try #require(P256.PublicKey(uncompressed: Self.receiverPublic))
        let senderPublic = try #require(P256.PublicKey(uncompressed: Self.senderPublic))
        #expect(sender.sharedSecret(with: receiverPublic) == Self.ecdhSecret)
        #expect(receiver.sharedSecret(with: senderPublic) == Self.ecdhSecret)
    }

    @Test func aNewKeyStoredAsItsScalarComesBackTheSame() throws {
        let made = try P256.PrivateKey()
        let again = try P256.PrivateKey(scalar: made.scalar)
        #expect(again.publicKey == made.publicKey)
        #expect(made.publicKey.count == 65 && made.publicKey[0] == 0x04)
        #expect(try P256.PrivateKey().publicKey != made.publicKey, "two new keys differ")
    }

    @Test func aSignatureVerifiesOnlyForItsMessageAndKey() throws {
        let key = try P256.PrivateKey()
        let message = Array("header.claims".utf8)
        let signature = try #require(key.signature(for: message))
        #expect(signature.count == 64)
        let publicKey = try #require(P256.PublicKey(uncompressed: key.publicKey))
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!publicKey.isValidSignature(signature, for: Array("header.claimz".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!publicKey.isValidSignature(flipped, for: message))
        #expect(!publicKey.isValidSignature(Array(signature.dropLast()), for: message))
        let other = try #require(P256.PublicKey(uncompressed: try P256.PrivateKey().publicKey))
        #expect(!other.isValidSignature(signature, for: message))
    }

    @Test func aPointOffTheCurveOrInAnotherShapeIsNoKey() {
        var offCurve = Self.receiverPublic
        offCurve[64] ^= 1
        #expect(P256.PublicKey(uncompressed: offCurve) == nil, "y changed: not on the curve")
        var compressedTag = Self.receiverPublic
        compressedTag[0] = 0x02
        #expect(P256.PublicKey(uncompressed: compressedTag) == nil)
        #expect(P256.PublicKey(uncompressed: Array(Self.receiverPublic.prefix(33))) == nil, "a compressed-size point")
        #expect(P256.PublicKey(uncompressed: Self.receiverPublic + [0]) == nil)
        #expect(P256.PublicKey(uncompressed: []) == nil)
        #expect(P256.PublicKey(uncompressed: [0x04] + [UInt8](repeating: 0, count: 64)) == nil, "the point (0, 0)")
    }

    @Test func aScalarOutOfRangeIsRefused() {
        #expect(throws: P256.Failure.self) { try P256.PrivateKey(scalar: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: P256.Failure.self) { try P256.PrivateKey(scalar: [UInt8](repeating: 0xFF, count: 32)) }
        #expect(throws: P256.Failure.self) { try P256.PrivateKey(scalar: Array(Self.senderScalar.dropLast())) }
    }

    @Test func aPEMKeyMustBeP256() throws {
        #expect(throws: P256.Failure.self) { try P256.PrivateKey(pem: Array("not a key".utf8)) }
        #expect(throws: P256.Failure.self) { try P256.PrivateKey(pem: []) }
    }
}
