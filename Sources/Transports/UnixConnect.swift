#if canImport(Glibc)
import Glibc
#endif
import EventLoop

/// A non-blocking connect to a Unix stream socket (a local PostgreSQL's
/// `/var/run/postgresql/.s.PGSQL.5432`), used like `TCPConnect`: register the socket for
/// `.writable` and read `TCPConnect.result` when it is. A local connect usually ends at once;
/// a full backlog makes it wait (EAGAIN is not an error here, the writable event ends it).
public enum UnixConnect {
    public static func start(path: String) throws(Errno) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Errno.nameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Errno.current }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        if status != 0 && errno != EINPROGRESS && errno != EAGAIN && errno != EINTR {
            let error = Errno.current
            close(fd)
            throw error
        }
        return fd
    }
}
