import Crypto
import JSON

/// The relying party's side of WebAuthn (Level 3, sections 7.1 and 7.2) for the web console's
/// passkeys: what the server checks of a registration and of a sign-in. It knows nothing of
/// HTTP or of the store: the caller finds the challenge it gave (`challenge(in:)`), uses it
/// up, and keeps the credential and its counter.
public struct WebAuthnVerifier: Sendable {
    /// The RP ID: the host of `PUBLIC_URL` (`tasks.example.com`).
    public let relyingPartyID: String
    /// The server's origin, as a browser writes it in the client data (`https://tasks.example.com`).
    public let origin: String

    public init(relyingPartyID: String, origin: String) {
        self.relyingPartyID = relyingPartyID
        self.origin = origin
    }

    /// A passkey the authenticator made, once its registration checked out.
    public struct NewCredential: Equatable, Sendable {
        public let credentialID: [UInt8]
        /// The COSE_Key bytes, kept to verify later sign-ins.
        public let publicKey: [UInt8]
        public let signCount: UInt32
        /// The attestation format the authenticator sent (`none` when the browser removed it).
        public let format: String
    }

    /// The challenge the client data names, decoded from base64url, so the caller can find
    /// (and use up) the one it gave before anything else is checked.
    public static func challenge(in clientDataJSON: [UInt8]) throws(WebAuthnError) -> [UInt8] {
        try ClientData(clientDataJSON).challenge
    }

    /// Registration (section 7.1): the client data of `webauthn.create` for `challenge` from
    /// this origin; the attestation object's authenticator data for this RP ID, with the
    /// user present and verified, and a new credential with a supported key.
    ///
    /// The attestation statement is not checked. The server asks for `attestation: "none"`,
    /// and browsers then send the format `none`; an authenticator may still send a
    /// self-attestation (`packed` without a certificate) or another format. An attestation
    /// only says who made the authenticator, and the server trusts no maker's certificates,
    /// so it takes every format as `none` would be taken: the key is the one the authenticator
    /// will sign with, which each sign-in proves.
    public func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8],
                                   challenge: [UInt8]) throws(WebAuthnError) -> NewCredential {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        let object: CBOR
        do {
            object = try CBORDecoder.decode(attestationObject)
        } catch {
            throw .malformed("the attestation object is not CBOR")
        }
        guard case .map = object, let format = object["fmt"]?.textValue,
              let statement = object["attStmt"], case .map(let statementEntries) = statement,
              let authDataBytes = object["authData"]?.bytesValue else {
            throw .malformed("the attestation object lacks fmt, attStmt or authData")
        }
        if format == "none", !statementEntries.isEmpty { throw .malformed("a none attestation with a statement") }
        let authData = try WebAuthnAuthenticatorData(authDataBytes)
        try checkAuthenticatorData(authData)
        guard let credentialID = authData.credentialID, let keyBytes = authData.publicKeyBytes, let key = authData.publicKey else {
            throw .malformed("no attested credential data")
        }
        _ = try COSEPublicKey(key)
        return NewCredential(credentialID: credentialID, publicKey: keyBytes, signCount: authData.signCount, format: format)
    }

    /// Sign-in (section 7.2): the client data of `webauthn.get` for `challenge` from this
    /// origin; the authenticator data for this RP ID with the user present and verified; the
    /// signature over authenticatorData || SHA-256(clientDataJSON) with the stored key; a sign
    /// counter above the stored one when either is not zero. Returns the new counter.
    public func verifyAssertion(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
                                challenge: [UInt8], publicKey: [UInt8], storedSignCount: UInt32) throws(WebAuthnError) -> UInt32 {
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let authData = try WebAuthnAuthenticatorData(authenticatorData)
        try checkAuthenticatorData(authData)
        let key = try COSEPublicKey(bytes: publicKey)
        guard SignatureCheck.verify(signature, of: authenticatorData + SHA256.hash(clientDataJSON), with: key) else {
            throw .badSignature
        }
        if authData.signCount != 0 || storedSignCount != 0 {
            guard authData.signCount > storedSignCount else { throw .counterNotIncreased }
        }
        return authData.signCount
    }

    private func checkClientData(_ bytes: [UInt8], type: String, challenge: [UInt8]) throws(WebAuthnError) {
        let clientData = try ClientData(bytes)
        guard clientData.type == type else { throw .wrongType }
        guard constantTimeEquals(clientData.challenge, challenge) else { throw .wrongChallenge }
        guard clientData.origin == origin, !clientData.crossOrigin else { throw .wrongOrigin }
    }

    private func checkAuthenticatorData(_ authData: WebAuthnAuthenticatorData) throws(WebAuthnError) {
        guard constantTimeEquals(authData.rpIDHash, SHA256.hash(relyingPartyID)) else { throw .wrongRelyingParty }
        guard authData.flags & WebAuthnAuthenticatorData.userPresent != 0 else { throw .userNotPresent }
        guard authData.flags & WebAuthnAuthenticatorData.userVerified != 0 else { throw .userNotVerified }
    }
}

/// `CollectedClientData` (section 5.8.1), read from the exact bytes the browser signed.
struct ClientData {
    let type: String
    let challenge: [UInt8]
    let origin: String
    let crossOrigin: Bool

    init(_ bytes: [UInt8]) throws(WebAuthnError) {
        let json: JSON
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw .malformed("the client data is not JSON")
        }
        guard let type = json["type"]?.stringValue, let challengeText = json["challenge"]?.stringValue,
              let origin = json["origin"]?.stringValue else {
            throw .malformed("the client data lacks type, challenge or origin")
        }
        // base64url without padding (section 5.8.1); anything else names no challenge we gave.
        guard !challengeText.contains("="), !challengeText.contains("+"), !challengeText.contains("/"),
              let challenge = Base64.decode(challengeText) else {
            throw .wrongChallenge
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        crossOrigin = json["crossOrigin"]?.boolValue ?? false
    }
}
