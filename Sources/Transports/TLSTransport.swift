#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Logging
import TLS

/// A TLS session (the `TLS` target's OpenSSL code) over a socket: an accepted one (server
/// side, the certificate of a `TLSServerContext`) or a connected one (client side: SNI, the
/// ALPN offer and the peer's certificate checked against the name, from a `TLSClientContext`).
/// The handshake is `establish`'s steps, or happens inside the first reads and writes (a
/// server's user sees nothing of it but "not now"). A read may have to wait for a writable
/// socket and a write for a readable one: `neededInterest` says which.
public final class TLSTransport: Transport {
    public let fd: Int32
    private let session: TLSSession
    /// What the last handshake step, read and write are waiting for, beyond the user's wish.
    private var handshakeNeeds: Interest = []
    private var readNeeds: Interest = []
    private var writeNeeds: Interest = []
    private var handshakeLogged = false

    /// The server side of an accepted socket, with the context's current certificate.
    public init(server context: TLSServerContext, fd: Int32) throws(TLSError) {
        session = try TLSSession(server: context, fd: fd)
        self.fd = fd
    }

    /// The client side of a connected socket, to the server named `serverName` (a host
    /// name, sent as SNI, or an IP address), which its certificate must carry.
    public init(client context: TLSClientContext, fd: Int32, serverName: String) throws(TLSError) {
        session = try TLSSession(client: context, fd: fd, serverName: serverName)
        self.fd = fd
    }

    public var neededInterest: Interest { handshakeNeeds.union(readNeeds).union(writeNeeds) }
    public var hasBufferedInput: Bool { session.pendingBytes > 0 }
    public var isEstablished: Bool { session.isHandshakeDone }
    public var applicationProtocol: String? { session.alpnProtocol }

    public func establish() throws(TransportError) -> Bool {
        handshakeNeeds = []
        switch session.handshake() {
        case .done:
            noteHandshake()
            return true
        case .wantRead:
            return false
        case .wantWrite:
            handshakeNeeds = .writable
            return false
        case .failed(let error):
            throw TransportError(error.message)
        }
    }

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

    /// A failed handshake inside a read or write (a TLS 1.1 client, no protocol in common,
    /// garbage) or a broken session: the user closes. Logged at debug level: any peer can
    /// cause it.
    private static func failure(_ error: TLSError) -> Errno {
        Log.debug("TLS failed", ["error": error.message])
        return Errno(EPROTO)
    }
}

extension TLSTransport {
    /// The server's certificate hash for channel binding (`TLSSession.serverEndPointHash`).
    public var serverEndPointHash: [UInt8]? { session.serverEndPointHash }
}
