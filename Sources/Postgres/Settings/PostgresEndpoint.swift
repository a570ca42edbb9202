/// Where the server listens: a host and port, or a directory holding its Unix socket
/// (`.s.PGSQL.<port>`, as libpq names it).
public enum PostgresEndpoint: Sendable, Equatable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)
    case unix(directory: String, port: UInt16)

    /// The socket file of a Unix endpoint.
    public var socketPath: String? {
        guard case .unix(let directory, let port) = self else { return nil }
        return (directory.hasSuffix("/") ? directory : directory + "/") + ".s.PGSQL.\(port)"
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix: socketPath ?? ""
        }
    }
}
