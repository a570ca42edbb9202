import EventLoop

/// The socket itself: every call is the system call, nothing is buffered, nothing to set up.
public final class PlainTransport: Transport {
    public let fd: Int32

    public init(fd: Int32) {
        self.fd = fd
    }

    public func establish() throws(TransportError) -> Bool { true }

    @inline(__always)
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        try Socket.read(fd, into: buffer)
    }

    @inline(__always)
    public func write(_ chunks: ArraySlice<[UInt8]>, skipping offset: Int) throws(Errno) -> Int? {
        try Socket.write(fd, from: chunks, skipping: offset)
    }

    public var hasBufferedInput: Bool { false }
    public var neededInterest: Interest { [] }
    public var isEstablished: Bool { true }
    public var applicationProtocol: String? { nil }

    public func shutdownWrite() {
        Socket.shutdownWrite(fd)
    }

    public func close() {
        Socket.close(fd)
    }
}
