import EventLoop

/// What a connection reads its requests from and writes its answers to: the socket itself
/// (`PlainTransport`), or a TLS session over it (`TLSTransport`). The connection knows HTTP
/// and nothing of what carries it; a transport knows bytes and nothing of HTTP.
///
/// Every call is non-blocking and runs on the loop thread: nil means "not now", and the
/// connection waits for the interest the transport asks for.
public protocol Transport: AnyObject {
    /// The socket under the transport, the one the loop watches.
    var fd: Int32 { get }

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

    /// Events the transport itself waits for, besides those the connection wants: TLS may
    /// need to write during a read (a handshake message) or to read during a write.
    var neededInterest: Interest { get }

    /// Whether the transport carries application bytes yet (TLS: the handshake is done). Until
    /// then the connection gives it `headerTimeout` from the accept, not the idle timeout, so
    /// a handshake trickled a byte at a time cannot hold a connection open.
    var isEstablished: Bool { get }

    /// Ends our direction of the stream, after everything queued is out (TLS: a close_notify
    /// alert first); the peer's input can still be read.
    func shutdownWrite()

    /// Releases the transport and closes the socket.
    func close()
}

/// Makes the transport of each accepted connection (TLS sessions share one context, which a
/// reload replaces for new connections only).
public protocol TransportFactory: AnyObject {
    func makeTransport(fd: Int32) throws(Errno) -> any Transport
}
