#if canImport(Glibc)
import Glibc
#endif
import EventLoop

/// A non-blocking TCP connect for the loop: `start` returns at once with the socket (the
/// caller owns it); register it for `.writable`, which it becomes when the connect ends, and
/// `result` says how it ended. A client then puts a `Transport` over it.
public enum TCPConnect {
    public static func start(_ address: IPAddress, port: UInt16) throws(Errno) -> Int32 {
        let family = address.family == .v4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Errno.current }
        // Requests are small and should leave at once, not wait for Nagle's timer.
        Socket.setNoDelay(fd)
        var storage = sockaddr_storage()
        let length = Socket.fill(&storage, address: address.bytes, port: port)
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        if status != 0 && errno != EINPROGRESS && errno != EINTR {
            let error = Errno.current
            close(fd)
            throw error
        }
        return fd
    }

    /// nil when the connect succeeded, else why it failed (SO_ERROR).
    public static func result(_ fd: Int32) -> Errno? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return Errno.current }
        return error == 0 ? nil : Errno(error)
    }
}
