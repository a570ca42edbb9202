#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// One TLS session over a connected, non-blocking socket, for the epoll loop: every call
/// returns at once, with "want read" or "want write" where a blocking socket would wait.
/// The session never closes the descriptor, and never registers it anywhere: the caller
/// owns both. Writes use `write(2)` underneath, so the process must ignore SIGPIPE (the
/// daemon does, in main.swift). One thread at a time.
public final class TLSSession {
    let ssl: OpaquePointer
    /// Keeps the `SSL_CTX` (and its ALPN list) alive for as long as the session.
    private let context: OpenSSLContext

    /// A client session for `serverName`: sent as SNI (unless it is an IP address), and
    /// the name (or IP address) the server's certificate must carry when the context checks
    /// names (`TLSClientContext.PeerCheck`).
    public init(client: TLSClientContext, fd: Int32, serverName: String) throws(TLSError) {
        context = try client.context()
        ssl = try Self.makeSSL(context.pointer, fd: fd)
        let param = SSL_get0_param(ssl)
        if Self.isIPAddress(serverName) {
            guard !client.checksName || X509_VERIFY_PARAM_set1_ip_asc(param, serverName) == 1 else {
                SSL_free(ssl)
                throw TLSError(.configuration, "cannot check the certificate against \(serverName): \(openSSLErrors())")
            }
        } else {
            // No partial wildcards (`a*.example.com`), as RFC 6125 recommends.
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            let checksName = client.checksName
            let named = serverName.withCString { name in
                (!checksName || SSL_set1_host(ssl, name) == 1)
                    && SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: name)) == 1
            }
            guard named else {
                SSL_free(ssl)
                throw TLSError(.configuration, "cannot set the server name \(String(reflecting: serverName)): \(openSSLErrors())")
            }
        }
        SSL_set_connect_state(ssl)
    }

    /// A server session with the context's current certificate.
    public init(server: TLSServerContext, fd: Int32) throws(TLSError) {
        context = server.current
        ssl = try Self.makeSSL(context.pointer, fd: fd)
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
    }

    private static func makeSSL(_ context: OpaquePointer, fd: Int32) throws(TLSError) -> OpaquePointer {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else {
            throw TLSError(.configuration, "SSL_new failed: \(openSSLErrors())")
        }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            throw TLSError(.configuration, "SSL_set_fd failed: \(openSSLErrors())")
        }
        return ssl
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    // MARK: Handshake, reading, writing

    /// One step of the handshake; call again on `wantRead`/`wantWrite` once the socket is
    /// ready. A client's handshake fails when the certificate does not verify.
    public func handshake() -> TLSHandshake {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        switch outcome(result, during: true) {
        case .wantRead: return .wantRead
        case .wantWrite: return .wantWrite
        case .closed: return .failed(TLSError(.handshake, "the peer closed the connection during the TLS handshake"))
        case .failed(let error): return .failed(error)
        case .bytes: return .failed(TLSError(.handshake, "unexpected handshake result"))
        }
    }

    public var isHandshakeDone: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Decrypted bytes into `buffer` (not empty).
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSIO {
        precondition(!buffer.isEmpty)
        ERR_clear_error()
        var count = 0
        let result = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        if result == 1 { return .bytes(count) }
        return outcome(result, during: false)
    }

    /// Encrypts and sends up to `bytes.count` bytes (not empty). After `wantRead` or
    /// `wantWrite`, call again with the same bytes (they may sit elsewhere in memory).
    public func write(_ bytes: UnsafeRawBufferPointer) -> TLSIO {
        precondition(!bytes.isEmpty)
        ERR_clear_error()
        var count = 0
        let result = SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count)
        if result == 1 { return .bytes(count) }
        return outcome(result, during: false)
    }

    /// Bytes already decrypted and waiting inside OpenSSL: epoll does not report them, so
    /// a reader keeps reading while this is positive.
    public var pendingBytes: Int { Int(SSL_pending(ssl)) }

    /// Sends close_notify if it fits in the socket buffer now; never waits for the peer's.
    public func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// The protocol the two sides agreed on through ALPN, such as `h2`; nil when none.
    public var alpnProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// `TLSv1.3` or `TLSv1.2`.
    public var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    private func outcome(_ result: Int32, during handshake: Bool) -> TLSIO {
        let kind: TLSError.Kind = handshake ? .handshake : .io
        let savedErrno = errno
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            return .wantRead
        case SSL_ERROR_WANT_WRITE:
            return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL:
            let queued = openSSLErrors()
            if savedErrno == 0 || savedErrno == EPIPE || savedErrno == ECONNRESET {
                return handshake ? .failed(TLSError(kind, "the connection was closed during the TLS handshake")) : .closed
            }
            return .failed(TLSError(kind, "\(String(cString: strerror(savedErrno))) (\(queued))"))
        default:
            let code = ERR_peek_error()
            // OpenSSL 3 reports a TCP end without close_notify as an error; for the
            // protocols over this (HTTP/2 frames its own messages) it is just the end.
            if !handshake && ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING {
                ERR_clear_error()
                return .closed
            }
            var message = openSSLErrors()
            if handshake {
                let verify = SSL_get_verify_result(ssl)
                if verify != Int(X509_V_OK) {
                    message = "certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify))) (\(message))"
                }
            }
            return .failed(TLSError(kind, message))
        }
    }
}
