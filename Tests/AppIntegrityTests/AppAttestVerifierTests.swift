import Testing
@testable import AppIntegrity
import Crypto

/// `app-integrity.md#what-the-server-validates` against the real attestations of
/// Tests/Fixtures/app-attest, each verified at the time its file states.
@Suite struct AppAttestVerifierTests {
    static let valid = AppAttestVector.load("attestation")
    static let negative = AppAttestVector.load("negative")

    private func verify(_ vector: AppAttestVector, appIDs: [String]? = nil, environment: AppAttestEnvironment? = nil,
                        keyID: [UInt8]? = nil, object: [UInt8]? = nil, at time: Int64? = nil) throws -> AttestedCredential {
        let verifier = try #require(AppAttestVerifier(appIDs: appIDs ?? [vector.appID],
                                                      environment: environment ?? AppAttestEnvironment(rawValue: vector.environment)!))
        return try verifier.verify(object: object ?? vector.object, keyID: keyID ?? vector.keyID,
                                   clientDataHash: vector.clientDataHash, at: time ?? vector.verifyAt)
    }

    /// 16 valid and 30 negative vectors are in the repository; with the shared test data
    /// beside it (as in CI), all 18 and 35.
    @Test func theFixturesAreThere() {
        let shared = AppAttestVector.hasSharedData
        #expect(Self.valid.count == (shared ? 18 : 16))
        #expect(Self.negative.count == (shared ? 35 : 30))
    }

    @Test func thePinnedRootIsTheFixturesRoot() throws {
        let pinned = try #require(X509Certificate(pem: AppleAppAttestationRoot.pem))
        let fixture = try #require(X509Certificate(pem: AppAttestVector.rootPEM))
        #expect(pinned.extensionValue(oid: "2.5.29.14") == fixture.extensionValue(oid: "2.5.29.14"))
        #expect(X509Certificate(pem: "no certificate") == nil)
        #expect(X509Certificate(der: [0x30, 0x03, 0x02, 0x01, 0x00]) == nil)
    }

    @Test(arguments: valid) func eachRealAttestationPasses(_ vector: AppAttestVector) throws {
        let credential = try verify(vector)
        #expect(credential.keyID == vector.keyID)
        #expect(credential.publicKey.count == 65)
        #expect(SHA256.hash(credential.publicKey) == vector.keyID)
        #expect(credential.counter == 0)
        // A server with several app IDs accepts it too.
        #expect(try verify(vector, appIDs: ["ABCDE12345.com.example.other", vector.appID]).keyID == vector.keyID)
    }

    /// The error each stated reason of a negative file names; the tampered ones that break
    /// several checks fail at the first in the contract's order.
    static func expectedError(for reason: String) -> AppAttestError? {
        let table: [(String, AppAttestError)] = [
            ("leaf certificate expired", .certificateOutsideValidity),
            ("nonce mismatch", .nonceMismatch),
            ("rpIdHash", .appIDMismatch),
            ("key id != SHA256", .keyIDMismatch),
            ("aaguid is", .environmentMismatch),
            ("signature flipped", .untrustedChain),
            ("x5c lacks the intermediate", .untrustedChain),
            // The intermediate as x5c[0] chains, but carries no nonce.
            ("x5c order swapped", .nonceMismatch),
            ("fmt is not", .wrongFormat),
        ]
        return table.first { reason.contains($0.0) }?.1
    }

    @Test(arguments: negative) func eachNegativeVectorFailsForItsReason(_ vector: AppAttestVector) throws {
        if vector.expected.contains("not a CBOR attestation object") {
            #expect {
                try verify(vector)
            } throws: { error in
                if case AppAttestError.malformed = error { return true }
                return false
            }
            return
        }
        let expected = try #require(Self.expectedError(for: vector.expected), "no reason for \(vector.expected)")
        #expect(throws: expected) { try verify(vector) }
    }

    @Test func theWrongEnvironmentIsRefused() throws {
        for vector in Self.valid {
            let other: AppAttestEnvironment = vector.environment == "production" ? .development : .production
            #expect(throws: AppAttestError.environmentMismatch, "\(vector.name)") { try verify(vector, environment: other) }
        }
    }

    @Test func eachCertificateMustBeValidAtTheTime() throws {
        let vector = try #require(Self.valid.first { $0.name == "bas-d-attestation" })
        // Before the leaf's notBefore, and years after every window.
        #expect(throws: AppAttestError.certificateOutsideValidity) { try verify(vector, at: vector.verifyAt - 7200) }
        #expect(throws: AppAttestError.certificateOutsideValidity) { try verify(vector, at: 2_000_000_000) }
    }

    @Test func anotherRootIsUntrusted() throws {
        let vector = try #require(Self.valid.first)
        // The fixture's intermediate as the root: the chain then ends at an untrusted anchor.
        let attestation = try AttestationObject(vector.object)
        let der = attestation.certificates[1]
        let pem = "-----BEGIN CERTIFICATE-----\n" + Base64.encode(der) + "\n-----END CERTIFICATE-----\n"
        let verifier = try #require(AppAttestVerifier(appIDs: [vector.appID], environment: AppAttestEnvironment(rawValue: vector.environment)!, rootPEM: pem))
        #expect(throws: AppAttestError.untrustedChain) {
            try verifier.verify(object: vector.object, keyID: vector.keyID, clientDataHash: vector.clientDataHash, at: vector.verifyAt)
        }
    }

    /// Apple's documentation sample states no licence, so it stays in the shared test data,
    /// out of the repository; the trap it shows is also covered by the e2e forged vectors.
    @Test(.enabled(if: AppAttestVector.hasSharedData, "needs the shared test data beside the repository"))
    func applesSampleCarriesAValidationCategoryAfterTheKey() throws {
        let vector = try #require(Self.valid.first { $0.name == "apple-doc-2026-attestation" })
        let attestation = try AttestationObject(vector.object)
        let authData = try AuthenticatorData(attestation.authenticatorData)
        #expect(authData.validationCategory == 1)
        #expect(authData.flags & 0x80 == 0)
    }
}
