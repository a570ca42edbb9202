/// The authenticator data of an attestation (WebAuthn section 6.1, as App Attest uses it):
/// RP ID hash, flags, counter, then the attested credential data (aaguid, credential ID,
/// COSE key) and, optionally, an extensions map.
///
/// Apple's 2026 documentation sample puts an extensions map after the COSE key without
/// setting the ED flag, so bytes after the key are read as extensions whatever the flag
/// says (Tests/Fixtures/app-attest/README.md, "Observed quirk"); they must still be one CBOR map.
struct AuthenticatorData {
    let rpIDHash: [UInt8]
    let flags: UInt8
    let counter: UInt32
    let aaguid: [UInt8]
    let credentialID: [UInt8]
    let credentialKey: CBOR
    let extensions: CBOR?

    /// Flag bit 6: attested credential data is present.
    static let attestedCredentialData: UInt8 = 0x40

    init(_ bytes: [UInt8]) throws(AppAttestError) {
        // 32 + 1 + 4 bytes, then 16 + 2 of the attested credential data.
        guard bytes.count >= 55 else { throw .malformed("authenticator data too short") }
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        guard flags & Self.attestedCredentialData != 0 else { throw .malformed("no attested credential data") }
        aaguid = Array(bytes[37..<53])
        let idLength = Int(bytes[53]) << 8 | Int(bytes[54])
        guard bytes.count - 55 >= idLength else { throw .malformed("credential ID beyond the data") }
        credentialID = Array(bytes[55..<(55 + idLength)])
        let rest = Array(bytes[(55 + idLength)...])
        do {
            let (key, used) = try CBORDecoder.decodePrefix(rest)
            credentialKey = key
            if used < rest.count {
                let tail = try CBORDecoder.decode(Array(rest[used...]))
                guard case .map = tail else { throw AppAttestError.malformed("extensions are not a map") }
                extensions = tail
            } else {
                extensions = nil
            }
        } catch let error as CBORError {
            throw .malformed("authenticator data CBOR: \(error)")
        } catch let error as AppAttestError {
            throw error
        } catch {
            throw .malformed("authenticator data")
        }
    }

    /// The COSE EC2 key (RFC 9053: kty 2, crv 1 = P-256, x and y of 32 bytes) as an
    /// uncompressed point, or nil when the key is anything else.
    var credentialPoint: [UInt8]? {
        guard credentialKey[label: 1]?.integerValue == 2, credentialKey[label: -1]?.integerValue == 1,
              let x = credentialKey[label: -2]?.bytesValue, let y = credentialKey[label: -3]?.bytesValue,
              x.count == 32, y.count == 32 else { return nil }
        return [0x04] + x + y
    }

    /// `apple_validation_category_01`, when present: a byte string read as a little-endian
    /// integer (Apple's sample has h'01000000'), or an unsigned integer; nil when absent.
    /// A value of any other type reads as 0, which step 8 refuses.
    var validationCategory: UInt64? {
        guard let value = extensions?["apple_validation_category_01"] else { return nil }
        switch value {
        case .unsigned(let number):
            return number
        case .bytes(let bytes) where (1...8).contains(bytes.count):
            return bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        default:
            return 0
        }
    }
}
