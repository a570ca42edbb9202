#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Logging

/// The systemd notification protocol without libsystemd (there is no static libsystemd):
/// datagrams such as `READY=1` to the Unix socket in `$NOTIFY_SOCKET` (a path, or an
/// abstract name starting with `@`). Without the variable every call does nothing.
final class SystemdNotifier {
    private let fd: Int32
    private var address = sockaddr_un()
    private var addressLength: socklen_t = 0

    init?(environment: [String: String]) {
        guard let target = environment["NOTIFY_SOCKET"], !target.isEmpty else { return nil }
        var bytes = Array(target.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        guard abstract || bytes.first == UInt8(ascii: "/"), bytes.count < relaydeck_sun_path_size() else {
            Log.warn("NOTIFY_SOCKET is not a Unix socket path; not notifying systemd")
            return nil
        }
        if abstract { bytes[0] = 0 }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // An abstract name is exactly its bytes; a path ends at its NUL.
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    deinit { close(fd) }

    func notify(_ message: String) {
        var bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                sendto(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL), target, addressLength)
            }
        }
        if sent < 0 {
            Log.warn("could not notify systemd", ["error": String(cString: strerror(errno))])
        }
    }
}
