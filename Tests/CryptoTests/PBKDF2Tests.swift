import Testing
@testable import Crypto

@Suite struct PBKDF2Tests {
    // RFC 7914 section 11 gives PBKDF2-HMAC-SHA256 vectors.
    @Test func rfc7914VectorWithOneIteration() {
        let key = PBKDF2.sha256(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64)
        #expect(Hex.encode(key) == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
            + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test func rfc7914VectorWithManyIterations() {
        let key = PBKDF2.sha256(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80_000, length: 64)
        #expect(Hex.encode(key) == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
            + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
    }

    @Test func theDefaultLengthIsOneSHA256Block() {
        let key = PBKDF2.sha256(password: [1, 2, 3], salt: [4, 5], iterations: 2)
        #expect(key.count == 32)
        #expect(PBKDF2.sha256(password: [1, 2, 3], salt: [4, 5], iterations: 2, length: 64).prefix(32) == key[...])
    }
}
