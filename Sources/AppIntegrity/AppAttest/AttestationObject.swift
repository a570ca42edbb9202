/// The attestation object the app sends (`app-integrity.md#create-the-account`, field
/// `object`): a CBOR map with `fmt`, `attStmt` (`x5c`, `receipt`) and `authData`.
struct AttestationObject {
    /// DER certificates, the credential certificate first.
    let certificates: [[UInt8]]
    let authenticatorData: [UInt8]

    /// The format App Attest writes.
    static let format = "apple-appattest"

    init(_ bytes: [UInt8]) throws(AppAttestError) {
        let root: CBOR
        do {
            root = try CBORDecoder.decode(bytes)
        } catch {
            throw .malformed("not CBOR: \(error)")
        }
        guard case .map = root else { throw .malformed("not a map") }
        guard let fmt = root["fmt"]?.textValue else { throw .malformed("no fmt") }
        guard fmt == Self.format else { throw .wrongFormat }
        guard let statement = root["attStmt"], case .map = statement else { throw .malformed("no attStmt") }
        guard let x5c = statement["x5c"]?.arrayValue, !x5c.isEmpty, x5c.count <= 4 else {
            throw .malformed("x5c is not a list of one to four certificates")
        }
        var certificates: [[UInt8]] = []
        for entry in x5c {
            guard let der = entry.bytesValue else { throw .malformed("an x5c entry is not bytes") }
            certificates.append(der)
        }
        // The receipt is for Apple's fraud service; this server does not use it, but App
        // Attest always sends one, so its absence marks an object that is not App Attest's.
        guard statement["receipt"]?.bytesValue != nil else { throw .malformed("no receipt") }
        guard let authData = root["authData"]?.bytesValue else { throw .malformed("no authData") }
        self.certificates = certificates
        authenticatorData = authData
    }
}
