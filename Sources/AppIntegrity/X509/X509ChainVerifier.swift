import COpenSSL

/// Verifies a certificate chain with OpenSSL's X509_STORE at a given time
/// (`app-integrity.md#what-the-server-validates`, step 1): the leaf, the untrusted
/// certificates that may link it, and the one trusted root.
public enum X509ChainVerifier {
    public enum Failure: Error, Equatable, Sendable {
        /// A certificate of the chain is not valid yet, or no more, at the time.
        case outsideValidity
        /// No chain to the root, or a signature, constraint or name that does not hold. The
        /// number is OpenSSL's `X509_V_ERR_*` code, for the log.
        case untrusted(Int32)
    }

    /// Checks that `leaf` chains through `intermediates` to `root`, every certificate valid
    /// at `unixTime` (OpenSSL checks the time of each certificate of the chain it builds,
    /// also of the root).
    public static func verify(leaf: X509Certificate, intermediates: [X509Certificate], root: X509Certificate,
                              at unixTime: Int64) throws(Failure) {
        guard let store = X509_STORE_new() else { throw .untrusted(-1) }
        defer { X509_STORE_free(store) }
        guard X509_STORE_add_cert(store, root.pointer) == 1 else {
            ERR_clear_error()
            throw .untrusted(-1)
        }
        guard let untrusted = OPENSSL_sk_new_null() else { throw .untrusted(-1) }
        // The stack only borrows the certificates: freeing it leaves them to their owners.
        defer { OPENSSL_sk_free(untrusted) }
        for certificate in intermediates {
            guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate.pointer)) > 0 else { throw .untrusted(-1) }
        }
        guard let context = X509_STORE_CTX_new() else { throw .untrusted(-1) }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
            ERR_clear_error()
            throw .untrusted(-1)
        }
        // The request's time, not the process clock: tests verify real attestations at a time
        // inside their certificates' short validity.
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(unixTime))
        let verified = X509_verify_cert(context) == 1
        let error = X509_STORE_CTX_get_error(context)
        ERR_clear_error()
        // Both the certificates and the stack outlive the context: nothing is freed twice.
        withExtendedLifetime((leaf, intermediates, root)) {}
        guard verified else {
            if error == X509_V_ERR_CERT_HAS_EXPIRED || error == X509_V_ERR_CERT_NOT_YET_VALID {
                throw .outsideValidity
            }
            throw .untrusted(error)
        }
    }
}
