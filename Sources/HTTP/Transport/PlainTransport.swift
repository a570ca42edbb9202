import EventLoop

/// HTTP over the socket itself: every call is the system call, nothing is buffered.
public final class PlainTransport: Transport {
    public let fd: Int32

    public init(fd: Int32) {
        self.fd = fd
    }

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

    public func shutdownWrite() {
        Socket.shutdownWrite(fd)
    }

    public func close() {
        Socket.close(fd)
    }
}
