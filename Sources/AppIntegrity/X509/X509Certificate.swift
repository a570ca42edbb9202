import COpenSSL

/// One X.509 certificate, parsed by OpenSSL and owned by this object (freed in `deinit`).
/// Not Sendable: it holds an OpenSSL pointer that is used from the thread that made it.
///
/// This file and `X509ChainVerifier.swift` are the only places that hold OpenSSL's X.509
/// pointers; everything they hand out is copied into Swift arrays.
public final class X509Certificate {
    let pointer: OpaquePointer

    /// Parses one DER certificate; nil when the bytes are not exactly one certificate.
    public init?(der: [UInt8]) {
        guard !der.isEmpty else { return nil }
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            let used = cursor.map { $0 - buffer.baseAddress! } ?? 0
            return (certificate, used)
        }
        guard let certificate = parsed.0 else {
            ERR_clear_error()
            return nil
        }
        // Bytes after the certificate would be data no check looks at.
        guard parsed.1 == der.count else {
            X509_free(certificate)
            return nil
        }
        pointer = certificate
    }

    /// Parses the first certificate of a PEM text; nil when there is none.
    public init?(pem: String) {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return nil }
        let certificate: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let certificate else {
            ERR_clear_error()
            return nil
        }
        pointer = certificate
    }

    deinit {
        X509_free(pointer)
    }

    /// The value (the contents of the extnValue OCTET STRING) of the extension with the
    /// dotted `oid`, or nil when the certificate has none or has it twice.
    public func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else {
            ERR_clear_error()
            return nil
        }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(pointer, object, -1)
        guard index >= 0, X509_get_ext_by_OBJ(pointer, object, index) < 0,
              let ext = X509_get_ext(pointer, index), let data = X509_EXTENSION_get_data(ext) else { return nil }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let start = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: length))
    }

    /// The subject public key as an uncompressed P-256 point (0x04 || X || Y, 65 bytes), or
    /// nil when the key is not an elliptic-curve key on P-256.
    public var p256PublicKey: [UInt8]? {
        guard let key = X509_get0_pubkey(pointer) else {
            ERR_clear_error()
            return nil
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else { return nil }
        var group = [CChar](repeating: 0, count: 64)
        var groupLength = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &group, group.count, &groupLength) == 1,
              String(decoding: group.prefix(groupLength).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            ERR_clear_error()
            return nil
        }
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        // The point as the certificate states it; a compressed point is refused below, since
        // the key ID is the hash of the uncompressed form (`app-integrity.md#what-the-server-validates`).
        guard EVP_PKEY_get_octet_string_param(key, "encoded-pub-key", &point, point.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        guard length == 65, point[0] == 0x04 else { return nil }
        return point
    }
}
