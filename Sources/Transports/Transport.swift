import EventLoop

/// A byte stream over a socket the loop watches: the socket itself (`PlainTransport`), or a
/// TLS session over it (`TLSTransport`, as a server or as a client). What runs over it (an
/// HTTP/1.1 connection, an HTTP/2 client) knows its protocol and nothing of what carries it;
/// a transport knows bytes and nothing of the protocol.
///
/// Every call is non-blocking and runs on the loop thread: nil or false means "not now", and
/// the caller waits for its own interest plus the one the transport asks for.
public protocol Transport: AnyObject {
    /// The socket under the transport, the one the loop watches.
    var fd: Int32 { get }

    /// One step of setting the transport up (TLS: of the handshake): true once it carries
    /// application bytes, false to wait for `neededInterest` (and readable) and call again.
    /// A client calls it until true before its first write; a server's transport may skip it,
    /// its first reads and writes take the same steps.
    func establish() throws(TransportError) -> Bool

    /// Reads into `buffer`: the byte count (0 at the end of the stream), or nil when nothing
    /// can be read now.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int?

    /// Writes from `chunks` in order (at most `Socket.maxWriteChunks` of them), starting
    /// `offset` bytes into the first: the byte count, or nil when nothing can be written now.
    func write(_ chunks: ArraySlice<[UInt8]>, skipping offset: Int) throws(Errno) -> Int?

    /// Input the transport has already taken from the socket and not handed out (TLS: the
    /// rest of a decrypted record). epoll cannot report it, so a short read does not prove the
    /// input is drained while this is true.
    var hasBufferedInput: Bool { get }

    /// Events the transport itself waits for, besides those its user wants: TLS may need to
    /// write during a read or a handshake step (a handshake message) or to read during a write.
    var neededInterest: Interest { get }

    /// Whether the transport carries application bytes yet (TLS: the handshake is done). Until
    /// then an HTTP connection gives it `headerTimeout` from the accept, not the idle timeout,
    /// so a handshake trickled a byte at a time cannot hold a connection open.
    var isEstablished: Bool { get }

    /// The protocol the two ends agreed on once established (TLS: ALPN, such as `h2`); nil
    /// when none was (always, over a plain socket).
    var applicationProtocol: String? { get }

    /// Ends our direction of the stream, after everything queued is out (TLS: a close_notify
    /// alert first); the peer's input can still be read.
    func shutdownWrite()

    /// Releases the transport and closes the socket.
    func close()
}

/// Why a transport could not be set up, in words for a log line (TLS: OpenSSL's, such as
/// the certificate verification result).
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
