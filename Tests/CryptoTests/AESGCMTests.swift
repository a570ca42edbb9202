import Testing
@testable import Crypto

/// AES-128-GCM against the GCM specification's test cases 1 and 2 (all-zero key and nonce).
@Suite struct AESGCMTests {
    let zeroKey = [UInt8](repeating: 0, count: 16)
    let zeroNonce = [UInt8](repeating: 0, count: 12)

    @Test func theSpecificationsFirstTwoCases() {
        #expect(Hex.encode(AESGCM.seal([], key: zeroKey, nonce: zeroNonce)) == "58e2fccefa7e3061367f1d57a4e7455a")
        #expect(Hex.encode(AESGCM.seal([UInt8](repeating: 0, count: 16), key: zeroKey, nonce: zeroNonce))
            == "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf")
    }

    @Test func whatIsSealedOpensAndAnyChangeIsRefused() {
        let key = SecureRandom.bytes(16), nonce = SecureRandom.bytes(12)
        let message = Array("When I grow up".utf8)
        let sealed = AESGCM.seal(message, key: key, nonce: nonce)
        #expect(AESGCM.open(sealed, key: key, nonce: nonce) == message)
        for index in [0, message.count, sealed.count - 1] {
            var changed = sealed
            changed[index] ^= 0x40
            #expect(AESGCM.open(changed, key: key, nonce: nonce) == nil, "byte \(index) changed")
        }
        #expect(AESGCM.open(sealed, key: SecureRandom.bytes(16), nonce: nonce) == nil)
        #expect(AESGCM.open(Array(sealed.prefix(15)), key: key, nonce: nonce) == nil)
        #expect(AESGCM.open(AESGCM.seal([], key: key, nonce: nonce), key: key, nonce: nonce) == [])
    }
}
