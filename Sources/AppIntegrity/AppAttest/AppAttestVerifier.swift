import Crypto

/// Verifies an App Attest attestation the way `app-integrity.md#what-the-server-validates`
/// lists it (Apple's "Validating apps that connect to your server"), each step in order, the
/// first failure named. Not Sendable: it holds the root certificate, an OpenSSL object; the
/// API makes one and uses it on the loop thread.
public final class AppAttestVerifier {
    private let root: X509Certificate
    private let appIDHashes: [[UInt8]]
    public let environment: AppAttestEnvironment

    /// `appIDs` are `TEAMID.bundle.identifier`; `rootPEM` is Apple's App Attestation Root CA
    /// unless a test replaces it (`APP_ATTEST_ROOT_CA_FILE`). Nil when the PEM holds no certificate.
    public init?(appIDs: [String], environment: AppAttestEnvironment, rootPEM: String = AppleAppAttestationRoot.pem) {
        guard let root = X509Certificate(pem: rootPEM) else { return nil }
        self.root = root
        appIDHashes = appIDs.map { SHA256.hash($0) }
        self.environment = environment
    }

    /// Checks `object` for `keyID` and `clientDataHash` (SHA-256 of the challenge text, as the
    /// app computes it) at `unixTime`, the time of the request.
    public func verify(object: [UInt8], keyID: [UInt8], clientDataHash: [UInt8],
                       at unixTime: Int64) throws(AppAttestError) -> AttestedCredential {
        let attestation = try AttestationObject(object)
        let authData = try AuthenticatorData(attestation.authenticatorData)

        // 1. The chain: x5c[0] is the credential certificate, the rest may link it to the root.
        guard let leaf = X509Certificate(der: attestation.certificates[0]) else { throw .malformed("x5c[0] is not a certificate") }
        var intermediates: [X509Certificate] = []
        for der in attestation.certificates.dropFirst() {
            guard let certificate = X509Certificate(der: der) else { throw .malformed("an x5c entry is not a certificate") }
            intermediates.append(certificate)
        }
        do {
            try X509ChainVerifier.verify(leaf: leaf, intermediates: intermediates, root: root, at: unixTime)
        } catch .outsideValidity {
            throw .certificateOutsideValidity
        } catch {
            throw .untrustedChain
        }

        // 2. The nonce: SHA-256(authData || clientDataHash), compared in constant time like
        // every value an attacker may try to match.
        let expectedNonce = SHA256.hash(attestation.authenticatorData + clientDataHash)
        guard let value = leaf.extensionValue(oid: NonceExtension.oid), let nonce = NonceExtension.nonce(in: value),
              constantTimeEquals(nonce, expectedNonce) else { throw .nonceMismatch }

        // 3. The key ID is the hash of the certificate's public key (the uncompressed point).
        guard let publicKey = leaf.p256PublicKey else { throw .malformed("the credential key is not P-256") }
        guard keyID.count == 32, constantTimeEquals(SHA256.hash(publicKey), keyID) else { throw .keyIDMismatch }

        // 4. The RP ID hash is one of the configured app IDs.
        guard appIDHashes.contains(where: { constantTimeEquals($0, authData.rpIDHash) }) else { throw .appIDMismatch }

        // 5. A fresh key has signed nothing yet.
        guard authData.counter == 0 else { throw .counterNotZero }

        // 6. The environment this server accepts, and only it.
        guard authData.aaguid == environment.aaguid else { throw .environmentMismatch }

        // 7. The credential ID is the key ID.
        guard constantTimeEquals(authData.credentialID, keyID) else { throw .credentialIDMismatch }

        // 8. apple_validation_category_01, when present, is 1 to 6; 0, 7, 8 and 9 (and any
        // other value) are refused.
        if let category = authData.validationCategory, !(1...6).contains(category) {
            throw .validationCategoryRefused
        }

        // Not one of the eight steps, but what the account keeps must be the key that was
        // certified: the COSE key in the authenticator data is the certificate's.
        guard authData.credentialPoint == publicKey else { throw .publicKeyMismatch }
        return AttestedCredential(keyID: keyID, publicKey: publicKey, counter: authData.counter)
    }
}
