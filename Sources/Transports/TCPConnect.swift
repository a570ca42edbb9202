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
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        let length: socklen_t
        let bytes = address.bytes
        if address.family == .v4 {
            length = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    sin.pointee.sin_family = sa_family_t(AF_INET)
                    sin.pointee.sin_port = port.bigEndian
                    withUnsafeMutableBytes(of: &sin.pointee.sin_addr) { $0.copyBytes(from: bytes) }
                    return socklen_t(MemoryLayout<sockaddr_in>.size)
                }
            }
        } else {
            length = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                    sin6.pointee.sin6_port = port.bigEndian
                    withUnsafeMutableBytes(of: &sin6.pointee.sin6_addr) { $0.copyBytes(from: bytes) }
                    return socklen_t(MemoryLayout<sockaddr_in6>.size)
                }
            }
        }
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
