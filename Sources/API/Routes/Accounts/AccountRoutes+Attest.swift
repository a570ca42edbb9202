import AppIntegrity
import Clock
import Crypto
import Logging
import Relaydeck

extension AccountRoutes {
    /// The attested key of a new account (`app-integrity.md#create-the-account`): the
    /// challenge was used up when the body was read (`challengeRedeemed` says whether it was
    /// known and not expired); then the eight checks of `#what-the-server-validates` at the
    /// request's wall-clock time. Every refusal is the same `401 attestation_invalid`; the log
    /// says which check failed (no secret is in it).
    func attest(_ input: AttestationInput?, challengeRedeemed: Bool) throws(APIError) -> AttestedKey {
        guard let input else { throw .attestationRequired }
        guard let verifier = context.attestVerifier else { throw .defect("App Attest is on without a verifier") }
        let nowMillis = context.services.clock.wallMillis
        guard challengeRedeemed else {
            Log.info("attestation refused", ["reason": "unknown, used or expired challenge"])
            throw .attestationInvalid
        }
        do {
            // The app hashes the UTF-8 bytes of the challenge text (`app-integrity.md#flow`, step 3).
            let credential = try verifier.verify(object: input.object, keyID: input.keyID,
                                                 clientDataHash: SHA256.hash(input.challenge), at: nowMillis / 1000)
            return AttestedKey(keyID: credential.keyID, publicKey: credential.publicKey, counter: Int64(credential.counter))
        } catch {
            Log.info("attestation refused", ["reason": error.description])
            throw .attestationInvalid
        }
    }
}
