import COpenSSL

extension TLSSession {
    /// RFC 5929's `tls-server-end-point` channel binding: the hash of the server's certificate
    /// (its DER), with the hash of the certificate's own signature algorithm, SHA-256 where
    /// that is MD5 or SHA-1. SCRAM's `-PLUS` mechanisms (RFC 5802 section 6) send it, so a
    /// server that took the password's exchange through a relay of another TLS session fails.
    /// Nil before the handshake, or for a certificate whose signature names no hash (Ed25519):
    /// then no channel binding is offered.
    public var serverEndPointHash: [UInt8]? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        var digestID: Int32 = 0
        var keyID: Int32 = 0
        guard OBJ_find_sigid_algs(X509_get_signature_nid(certificate), &digestID, &keyID) == 1,
              digestID != NID_undef else { return nil }
        if digestID == NID_md5 || digestID == NID_sha1 { digestID = NID_sha256 }
        guard let digest = EVP_get_digestbyname(OBJ_nid2sn(digestID)) else { return nil }
        var buffer = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, digest, &buffer, &length) == 1 else { return nil }
        return Array(buffer.prefix(Int(length)))
    }
}
