import Crypto

/// The `attestation` of `POST /v1/accounts` (`app-integrity.md#create-the-account`):
/// `{"key_id": base64, "challenge": text, "object": base64}`. Its shape is a `422`;
/// whether it proves anything is the verifier's `401`.
struct AttestationInput {
    /// 32 bytes: the SHA-256 of the public key, as `DCAppAttestService.generateKey` returns it.
    let keyID: [UInt8]
    let challenge: String
    /// The CBOR attestation object.
    let object: [UInt8]

    /// Reads the field from `body`: the input, nil when it is absent or has a problem (the
    /// problem is then in `body`), and the challenge text whenever the field has one, so the
    /// caller can use it up also when another field is wrong.
    static func read(from body: inout FieldReader) -> (AttestationInput?, offered: String?) {
        guard var fields = body.object("attestation") else { return (nil, nil) }
        for name in ["key_id", "challenge", "object"] { fields.require(name) }
        let keyText = fields.read("key_id", .string)
        let challenge = fields.read("challenge", .string)
        let objectText = fields.read("object", .string)
        var keyID: [UInt8]?
        if let keyText {
            keyID = Base64.decode(keyText)
            if keyID == nil {
                fields.add("key_id", "Must be base64 text.")
            } else if keyID?.count != 32 {
                fields.add("key_id", "Must be 32 bytes.")
            }
        }
        var object: [UInt8]?
        if let objectText {
            object = Base64.decode(objectText)
            if object == nil || object?.isEmpty == true { fields.add("object", "Must be base64 text.") }
        }
        body.merge(fields)
        guard let keyID, keyID.count == 32, let challenge, let object, !object.isEmpty else { return (nil, challenge) }
        return (AttestationInput(keyID: keyID, challenge: challenge, object: object), challenge)
    }
}
