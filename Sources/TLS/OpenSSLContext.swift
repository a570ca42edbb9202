import COpenSSL

/// One `SSL_CTX` and what it points into (the ALPN list in wire format), freed together.
/// Sessions hold a reference to it, so a server context can swap in a reloaded certificate
/// while connections made with the old one finish with it.
final class OpenSSLContext {
    let pointer: OpaquePointer
    /// Length-prefixed protocol names (`\x02h2\x08http/1.1`), as ALPN puts them on the wire.
    let alpnWire: UnsafeMutableBufferPointer<UInt8>

    private init(pointer: OpaquePointer, alpn: [String]) {
        self.pointer = pointer
        let wire = alpn.flatMap { [UInt8(truncatingIfNeeded: $0.utf8.count)] + Array($0.utf8) }
        alpnWire = .allocate(capacity: max(wire.count, 1))
        _ = alpnWire.initialize(from: wire)
        alpnLength = wire.count
    }

    let alpnLength: Int

    deinit {
        SSL_CTX_free(pointer)
        alpnWire.deallocate()
    }

    /// The settings both sides share: TLS 1.2 at least, writes that may be partial and may
    /// come from a buffer that moved (Swift arrays do), buffers released while idle.
    private static func make(method: OpaquePointer?, alpn: [String]) throws(TLSError) -> OpenSSLContext {
        for name in alpn where name.isEmpty || name.utf8.count > 255 {
            throw TLSError(.configuration, "ALPN protocol name \(String(reflecting: name)) is not 1 to 255 bytes")
        }
        ERR_clear_error()
        guard let pointer = SSL_CTX_new(method) else {
            throw TLSError(.configuration, "SSL_CTX_new failed: \(openSSLErrors())")
        }
        let context = OpenSSLContext(pointer: pointer, alpn: alpn)
        guard SSL_CTX_ctrl(pointer, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1 else {
            throw TLSError(.configuration, "cannot require TLS 1.2: \(openSSLErrors())")
        }
        let mode = SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS
        _ = SSL_CTX_ctrl(pointer, SSL_CTRL_MODE, Int(mode), nil)
        // No renegotiation: HTTP/2 forbids it, and nothing here needs it.
        // SSL_OP_NO_RENEGOTIATION, SSL_OP_BIT(30): a macro Swift does not import.
        _ = SSL_CTX_set_options(pointer, UInt64(1) << 30)
        return context
    }

    static func client(alpn: [String], extraCAFile: String?, verifyPeer: Bool, systemCAs: Bool = true) throws(TLSError) -> OpenSSLContext {
        let context = try make(method: TLS_client_method(), alpn: alpn)
        let pointer = context.pointer
        if verifyPeer {
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
            // The system's CAs (Debian: /usr/lib/ssl/certs, the ca-certificates bundle).
            guard !systemCAs || SSL_CTX_set_default_verify_paths(pointer) == 1 else {
                throw TLSError(.configuration, "cannot load the system CA certificates: \(openSSLErrors())")
            }
            if let extraCAFile {
                guard SSL_CTX_load_verify_locations(pointer, extraCAFile, nil) == 1 else {
                    throw TLSError(.configuration, "cannot load the CA file \(extraCAFile): \(openSSLErrors())")
                }
            }
        } else {
            SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
        }
        if !alpn.isEmpty {
            // SSL_CTX_set_alpn_protos returns 0 on success.
            guard SSL_CTX_set_alpn_protos(pointer, context.alpnWire.baseAddress, UInt32(context.alpnLength)) == 0 else {
                throw TLSError(.configuration, "cannot set ALPN: \(openSSLErrors())")
            }
        }
        return context
    }

    static func server(certificateChainFile: String, privateKeyFile: String, alpn: [String]) throws(TLSError) -> OpenSSLContext {
        let context = try make(method: TLS_server_method(), alpn: alpn)
        let pointer = context.pointer
        guard SSL_CTX_use_certificate_chain_file(pointer, certificateChainFile) == 1 else {
            throw TLSError(.configuration, "cannot load the certificate chain \(certificateChainFile): \(openSSLErrors())")
        }
        guard SSL_CTX_use_PrivateKey_file(pointer, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError(.configuration, "cannot load the private key \(privateKeyFile): \(openSSLErrors())")
        }
        guard SSL_CTX_check_private_key(pointer) == 1 else {
            throw TLSError(.configuration, "the private key \(privateKeyFile) does not match the certificate: \(openSSLErrors())")
        }
        if !alpn.isEmpty {
            SSL_CTX_set_alpn_select_cb(pointer, selectALPN, Unmanaged.passUnretained(context).toOpaque())
        }
        return context
    }
}

/// The server's ALPN choice: the first of its own protocols that the client offers. No
/// protocol in common ends the handshake with `no_application_protocol` (RFC 7301 3.2)
/// rather than going on with one the client did not ask for.
private func selectALPN(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let argument, let out, let outLength, let offered else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    let context = Unmanaged<OpenSSLContext>.fromOpaque(argument).takeUnretainedValue()
    let ours = UnsafeBufferPointer(rebasing: context.alpnWire[0..<context.alpnLength])
    let theirs = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
    var i = 0
    while i < ours.count {
        let length = Int(ours[i])
        let name = ours[(i + 1)..<(i + 1 + length)]
        var j = 0
        while j < theirs.count {
            let theirLength = Int(theirs[j])
            guard j + 1 + theirLength <= theirs.count else { break }
            if theirLength == length && theirs[(j + 1)..<(j + 1 + theirLength)].elementsEqual(name) {
                out.pointee = UnsafePointer(ours.baseAddress! + i + 1)
                outLength.pointee = UInt8(length)
                return SSL_TLSEXT_ERR_OK
            }
            j += 1 + theirLength
        }
        i += 1 + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}

/// OpenSSL's error queue of this thread as one line, emptied.
func openSSLErrors() -> String {
    var lines: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return lines.isEmpty ? "no detail from OpenSSL" : lines.joined(separator: "; ")
}
