/// The authenticator data of a passkey (WebAuthn Level 3, section 6.1): RP ID hash, flags,
/// sign counter, then the attested credential data when the AT flag is set (at
/// registration), then an extensions map when the ED flag is set. Nothing may follow.
struct WebAuthnAuthenticatorData {
    let rpIDHash: [UInt8]
    let flags: UInt8
    let signCount: UInt32
    /// With the AT flag: the credential's ID, and its COSE key as bytes and as read.
    let credentialID: [UInt8]?
    let publicKeyBytes: [UInt8]?
    let publicKey: CBOR?

    static let userPresent: UInt8 = 0x01
    static let userVerified: UInt8 = 0x04
    static let attestedCredentialData: UInt8 = 0x40
    static let extensionData: UInt8 = 0x80

    init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformed("authenticator data too short") }
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var rest = Array(bytes[37...])
        if flags & Self.attestedCredentialData != 0 {
            // aaguid (16), credential ID length (2), credential ID, COSE key.
            guard rest.count >= 18 else { throw .malformed("attested credential data too short") }
            let idLength = Int(rest[16]) << 8 | Int(rest[17])
            guard idLength >= 1, idLength <= 1023, rest.count - 18 >= idLength else {
                throw .malformed("credential ID length out of range")
            }
            credentialID = Array(rest[18..<(18 + idLength)])
            rest = Array(rest[(18 + idLength)...])
            let decoded: (CBOR, Int)
            do {
                decoded = try CBORDecoder.decodePrefix(rest)
            } catch {
                throw .malformed("the credential public key is not CBOR")
            }
            publicKey = decoded.0
            publicKeyBytes = Array(rest[0..<decoded.1])
            rest = Array(rest[decoded.1...])
        } else {
            credentialID = nil
            publicKeyBytes = nil
            publicKey = nil
        }
        if flags & Self.extensionData != 0 {
            let extensions: CBOR
            do {
                extensions = try CBORDecoder.decode(rest)
            } catch {
                throw .malformed("the extensions are not one CBOR item")
            }
            guard case .map = extensions else { throw .malformed("the extensions are not a map") }
        } else if !rest.isEmpty {
            throw .malformed("bytes after the authenticator data")
        }
    }
}
