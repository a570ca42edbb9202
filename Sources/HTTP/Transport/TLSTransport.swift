#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Logging
import TLS

/// HTTPS: a TLS session (the `TLS` target's OpenSSL code) over the accepted socket. The
/// handshake happens inside the first reads and writes (the session is in accept state), so
/// the connection sees nothing of it but "not now". A read may have to wait for a writable
/// socket and a write for a readable one: `neededInterest` tells the connection which.
public final class TLSTransport: Transport {
    public let fd: Int32
    private let session: TLSSession
    /// What the last read and the last write are waiting for, beyond the connection's own wish.
    private var readNeeds: Interest = []
    private var writeNeeds: Interest = []
    private var handshakeLogged = false

    init(session: TLSSession, fd: Int32) {
        self.session = session
        self.fd = fd
    }

    public var neededInterest: Interest { readNeeds.union(writeNeeds) }
    public var hasBufferedInput: Bool { session.pendingBytes > 0 }
    public var isEstablished: Bool { session.isHandshakeDone }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        readNeeds = []
        switch session.read(into: buffer) {
        case .bytes(let count):
            noteHandshake()
            return count
        case .wantRead:
            return nil
        case .wantWrite:
            readNeeds = .writable
            return nil
        case .closed:
            return 0
        case .failed(let error):
            throw Self.failure(error)
        }
    }

    public func write(_ chunks: ArraySlice<[UInt8]>, skipping offset: Int) throws(Errno) -> Int? {
        writeNeeds = []
        var total = 0
        var skip = offset
        // One chunk per SSL_write: a retry after "want" offers the same first bytes again, at
        // least as many (a queued chunk only grows), which is what OpenSSL asks.
        for chunk in chunks.prefix(Socket.maxWriteChunks) {
            let result = chunk.withUnsafeBytes { raw in session.write(UnsafeRawBufferPointer(rebasing: raw[skip...])) }
            let wanted = chunk.count - skip
            skip = 0
            switch result {
            case .bytes(let count):
                total += count
                if count < wanted { return total }
            case .wantRead:
                writeNeeds = .readable
                return total > 0 ? total : nil
            case .wantWrite:
                return total > 0 ? total : nil
            case .closed:
                throw Errno.brokenPipe
            case .failed(let error):
                throw Self.failure(error)
            }
        }
        return total
    }

    public func shutdownWrite() {
        session.shutdown()
        Socket.shutdownWrite(fd)
    }

    public func close() {
        Socket.close(fd)
    }

    private func noteHandshake() {
        guard !handshakeLogged else { return }
        handshakeLogged = true
        Log.debug("TLS session", ["version": session.protocolVersion, "alpn": session.alpnProtocol ?? "none"])
    }

    /// A failed handshake (a TLS 1.1 client, no protocol in common, garbage) or session: the
    /// connection closes. Logged at debug level: any client can cause it.
    private static func failure(_ error: TLSError) -> Errno {
        Log.debug("TLS failed", ["error": error.message])
        return Errno(EPROTO)
    }
}

/// Makes a TLS session for each accepted connection, with the certificate loaded last. A
/// reload (`SIGHUP`) swaps the certificate for new connections; open ones keep their session.
public final class TLSTransportFactory: TransportFactory {
    /// HTTPS here is HTTP/1.1 only: a client that offers ALPN must offer `http/1.1`.
    public static let alpn = ["http/1.1"]

    private let context: TLSServerContext
    public let certificateFile: String
    public let keyFile: String

    public init(certificateFile: String, keyFile: String) throws(TLSError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        context = try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile, alpn: Self.alpn)
    }

    /// Reads both files again; on failure the old certificate stays and the error says why.
    public func reload() throws(TLSError) {
        try context.reload(certificateChainFile: certificateFile, privateKeyFile: keyFile)
    }

    public func makeTransport(fd: Int32) throws(Errno) -> any Transport {
        do {
            return TLSTransport(session: try TLSSession(server: context, fd: fd), fd: fd)
        } catch {
            Log.warn("could not start a TLS session", ["error": error.message])
            throw Errno(EPROTO)
        }
    }
}
