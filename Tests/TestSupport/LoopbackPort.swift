#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the kernel picked, and that port. Tests that
/// start a server of their own listen on it; tests that hand a port to another program close
/// it first (`freeLoopbackPort`).
public func bindLoopbackTCP() -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            _ = bind(fd, $0, length)
            _ = getsockname(fd, $0, &length)
        }
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}

/// A loopback port held bound but not listening, for a test of "nothing listens there": a
/// connect to it is refused (RST), and while the socket is open no other server (of a test
/// running in parallel) can take the port, as it could a port merely released
/// (`freeLoopbackPort`). Close `fd` when done.
public func closedLoopbackPort() -> (fd: Int32, port: UInt16) {
    bindLoopbackTCP()
}

/// A loopback port that was free a moment ago (bound, read and released).
public func freeLoopbackPort() -> UInt16 {
    let (fd, port) = bindLoopbackTCP()
    close(fd)
    return port
}
