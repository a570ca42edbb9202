@testable import AppIntegrity
import Crypto
import Testing
import WebAuthnTestSupport

/// Registration and sign-in checks of `WebAuthnVerifier`, with credentials made in the test by
/// `SoftwareAuthenticator` (ES256 and Ed25519), and one test for every check that refuses.
@Suite struct WebAuthnVerifierTests {
    let rpID = "console.example.com"
    let origin = "https://console.example.com"
    var verifier: WebAuthnVerifier { WebAuthnVerifier(relyingPartyID: rpID, origin: origin) }
    let challenge: [UInt8] = Array(100..<132)
    typealias A = SoftwareAuthenticator

    func register(_ authenticator: A, clientData: [UInt8]? = nil, object: [UInt8]? = nil) throws(WebAuthnError) -> WebAuthnVerifier.NewCredential {
        try verifier.verifyRegistration(
            clientDataJSON: clientData ?? A.clientData(type: "webauthn.create", challenge: challenge, origin: origin),
            attestationObject: object ?? authenticator.attestationObject(rpID: rpID), challenge: challenge)
    }

    /// An assertion as a browser would send it, each part replaceable.
    func assert(_ authenticator: A, publicKey: [UInt8], stored: UInt32, counter: UInt32, type: String = "webauthn.get",
                signedChallenge: [UInt8]? = nil, clientOrigin: String? = nil, rp: String? = nil,
                flags: UInt8 = A.up | A.uv, tamper: Bool = false) throws(WebAuthnError) -> UInt32 {
        let clientData = A.clientData(type: type, challenge: signedChallenge ?? challenge, origin: clientOrigin ?? origin)
        let authData = authenticator.authenticatorData(rpID: rp ?? rpID, flags: flags, counter: counter)
        var signature = authenticator.sign(authData + SHA256.hash(clientData))
        if tamper { signature[signature.count - 1] ^= 0x01 }
        return try verifier.verifyAssertion(clientDataJSON: clientData, authenticatorData: authData, signature: signature,
                                            challenge: challenge, publicKey: publicKey, storedSignCount: stored)
    }

    @Test(arguments: [A.Algorithm.es256, .ed25519])
    func aRegistrationAndASignInCheckOut(_ algorithm: A.Algorithm) throws {
        let authenticator = A(algorithm)
        let credential = try register(authenticator)
        #expect(credential.credentialID == authenticator.credentialID)
        #expect(credential.publicKey == authenticator.coseKey())
        #expect(credential.signCount == 0)
        #expect(credential.format == "none")
        #expect(try assert(authenticator, publicKey: credential.publicKey, stored: 0, counter: 1) == 1)
        #expect(try assert(authenticator, publicKey: credential.publicKey, stored: 1, counter: 7) == 7)
    }

    @Test func aCounterThatStaysZeroIsAccepted() throws {
        // Many passkeys that sync (iCloud Keychain, Google Password Manager) always send 0.
        let authenticator = A(.ed25519)
        let credential = try register(authenticator)
        #expect(try assert(authenticator, publicKey: credential.publicKey, stored: 0, counter: 0) == 0)
    }

    // MARK: Registration refused

    @Test func registrationWithTheGetTypeIsRefused() {
        let authenticator = A(.es256)
        #expect(throws: WebAuthnError.wrongType) {
            try register(authenticator, clientData: A.clientData(type: "webauthn.get", challenge: challenge, origin: origin))
        }
    }

    @Test func registrationForAnotherChallengeIsRefused() {
        let authenticator = A(.es256)
        #expect(throws: WebAuthnError.wrongChallenge) {
            try register(authenticator, clientData: A.clientData(type: "webauthn.create", challenge: Array(0..<32), origin: origin))
        }
    }

    @Test func registrationFromAnotherOriginIsRefused() {
        let authenticator = A(.es256)
        #expect(throws: WebAuthnError.wrongOrigin) {
            try register(authenticator, clientData: A.clientData(type: "webauthn.create", challenge: challenge,
                                                                 origin: "https://evil.example"))
        }
        #expect(throws: WebAuthnError.wrongOrigin) {
            try register(authenticator, clientData: A.clientData(type: "webauthn.create", challenge: challenge,
                                                                 origin: origin, crossOrigin: true))
        }
    }

    @Test func registrationForAnotherRelyingPartyIsRefused() {
        let authenticator = A(.es256)
        #expect(throws: WebAuthnError.wrongRelyingParty) {
            try register(authenticator, object: authenticator.attestationObject(rpID: "evil.example"))
        }
    }

    @Test func registrationWithoutUserVerificationOrPresenceIsRefused() {
        let authenticator = A(.es256)
        #expect(throws: WebAuthnError.userNotVerified) {
            try register(authenticator, object: authenticator.attestationObject(rpID: rpID, flags: A.up | A.at))
        }
        #expect(throws: WebAuthnError.userNotPresent) {
            try register(authenticator, object: authenticator.attestationObject(rpID: rpID, flags: A.uv | A.at))
        }
        // Without the AT flag the credential data are bytes nothing may follow.
        #expect(throws: WebAuthnError.malformed("bytes after the authenticator data")) {
            try register(authenticator, object: authenticator.attestationObject(rpID: rpID, flags: A.up | A.uv))
        }
    }

    @Test func aKeyOfAnotherAlgorithmIsRefused() {
        let authenticator = A(.es256)
        // ES384's label on a P-256 key, and an RSA key (kty 3, RS256).
        #expect(throws: WebAuthnError.unsupportedKey) {
            try register(authenticator, object: authenticator.attestationObject(rpID: rpID, coseKey: authenticator.coseKey(alg: -35)))
        }
        let rsa = CBORWriter.map([(1, .int(3)), (3, .int(-257)), (-1, .bytes([1, 2, 3])), (-2, .bytes([1, 0, 1]))])
        #expect(throws: WebAuthnError.unsupportedKey) {
            try register(authenticator, object: authenticator.attestationObject(rpID: rpID, coseKey: rsa))
        }
    }

    @Test func aNoneAttestationWithAStatementOrBrokenCBORIsRefused() {
        let authenticator = A(.es256)
        var object = authenticator.attestationObject(rpID: rpID)
        #expect(throws: WebAuthnError.malformed("the attestation object is not CBOR")) {
            try register(authenticator, object: Array(object.dropLast()))
        }
        // attStmt {} (0xA0) becomes {"x": 0}.
        let index = object.firstIndex(of: 0xA0)!
        object.replaceSubrange(index...index, with: [0xA1, 0x61, 0x78, 0x00])
        #expect(throws: WebAuthnError.malformed("a none attestation with a statement")) {
            try register(authenticator, object: object)
        }
    }

    // MARK: Sign-in refused

    @Test func aSignInWithTheCreateTypeIsRefused() throws {
        let authenticator = A(.es256)
        let key = try register(authenticator).publicKey
        #expect(throws: WebAuthnError.wrongType) {
            try assert(authenticator, publicKey: key, stored: 0, counter: 1, type: "webauthn.create")
        }
    }

    @Test func aSignInForAnotherChallengeIsRefused() throws {
        let authenticator = A(.es256)
        let key = try register(authenticator).publicKey
        #expect(throws: WebAuthnError.wrongChallenge) {
            try assert(authenticator, publicKey: key, stored: 0, counter: 1, signedChallenge: Array(0..<32))
        }
    }

    @Test func aSignInFromAnotherOriginIsRefused() throws {
        let authenticator = A(.ed25519)
        let key = try register(authenticator).publicKey
        #expect(throws: WebAuthnError.wrongOrigin) {
            try assert(authenticator, publicKey: key, stored: 0, counter: 1, clientOrigin: "http://console.example.com")
        }
    }

    @Test func aSignInForAnotherRelyingPartyIsRefused() throws {
        let authenticator = A(.es256)
        let key = try register(authenticator).publicKey
        #expect(throws: WebAuthnError.wrongRelyingParty) {
            try assert(authenticator, publicKey: key, stored: 0, counter: 1, rp: "example.com")
        }
    }

    @Test func aSignInWithoutUserVerificationIsRefused() throws {
        let authenticator = A(.es256)
        let key = try register(authenticator).publicKey
        #expect(throws: WebAuthnError.userNotVerified) {
            try assert(authenticator, publicKey: key, stored: 0, counter: 1, flags: A.up)
        }
    }

    @Test(arguments: [A.Algorithm.es256, .ed25519])
    func aBadSignatureIsRefused(_ algorithm: A.Algorithm) throws {
        let authenticator = A(algorithm)
        let key = try register(authenticator).publicKey
        #expect(throws: WebAuthnError.badSignature) {
            try assert(authenticator, publicKey: key, stored: 0, counter: 1, tamper: true)
        }
        // Signed by another authenticator's key.
        let other = A(algorithm)
        #expect(throws: WebAuthnError.badSignature) {
            try assert(other, publicKey: key, stored: 0, counter: 1)
        }
    }

    @Test func aCounterThatDidNotIncreaseIsRefused() throws {
        let authenticator = A(.es256)
        let key = try register(authenticator).publicKey
        #expect(throws: WebAuthnError.counterNotIncreased) {
            try assert(authenticator, publicKey: key, stored: 5, counter: 4)
        }
        #expect(throws: WebAuthnError.counterNotIncreased) {
            try assert(authenticator, publicKey: key, stored: 5, counter: 5)
        }
        #expect(throws: WebAuthnError.counterNotIncreased) {
            try assert(authenticator, publicKey: key, stored: 5, counter: 0)
        }
    }

    @Test func theChallengeIsReadFromTheClientData() throws {
        #expect(try WebAuthnVerifier.challenge(in: A.clientData(type: "webauthn.get", challenge: challenge, origin: origin)) == challenge)
        #expect(throws: WebAuthnError.malformed("the client data is not JSON")) {
            try WebAuthnVerifier.challenge(in: Array("{".utf8))
        }
    }
}
