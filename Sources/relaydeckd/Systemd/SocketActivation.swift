#if canImport(Glibc)
import Glibc
#endif
import EventLoop

/// Listening sockets passed by systemd (`sd_listen_fds(3)`): `LISTEN_PID` names this process,
/// `LISTEN_FDS` counts descriptors from 3 on. Without them (or for another process) there
/// are none, and `LISTEN` is used instead.
enum SocketActivation {
    static let firstDescriptor: Int32 = 3

    enum Failure: Error, CustomStringConvertible {
        case invalid(String)
        var description: String {
            switch self {
            case .invalid(let message): message
            }
        }
    }

    static func descriptors(environment: [String: String]) throws(Failure) -> [Int32] {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return [] }
        guard let pid = Int32(pidText), pid == getpid() else { return [] }
        guard let count = Int32(countText), (1...64).contains(count) else {
            throw .invalid("LISTEN_FDS: expected a number of descriptors from 1 to 64")
        }
        let fds = (0..<count).map { firstDescriptor + $0 }
        for fd in fds where !Socket.isListeningStream(fd) {
            throw .invalid("LISTEN_FDS: descriptor \(fd) is not a listening stream socket")
        }
        // Children must not inherit them as if they were theirs.
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        return fds
    }
}
