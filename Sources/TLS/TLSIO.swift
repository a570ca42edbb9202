/// What a non-blocking TLS operation did. "Want read" and "want write" are not errors:
/// the caller waits for the socket to become readable or writable and calls again with
/// the same arguments (a handshake or a renegotiation can make a read want to write).
public enum TLSIO: Sendable, Equatable {
    /// Bytes moved: read into the buffer, or taken from it for writing (never 0).
    case bytes(Int)
    case wantRead
    case wantWrite
    /// The peer closed the session (close_notify, or the end of the TCP stream).
    case closed
    case failed(TLSError)
}

/// What a handshake step did.
public enum TLSHandshake: Sendable, Equatable {
    case done
    case wantRead
    case wantWrite
    case failed(TLSError)
}
