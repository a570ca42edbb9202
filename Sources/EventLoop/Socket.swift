#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Where a connection came from.
public enum PeerAddress: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 address bytes.
    case ip(bytes: [UInt8], port: UInt16)
    case unix

    public var description: String {
        switch self {
        case .unix: return "unix"
        case .ip(let bytes, let port):
            if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") + ":\(port)" }
            return "[" + stride(from: 0, to: bytes.count, by: 2)
                .map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":") + "]:\(port)"
        }
    }
}

/// Thin, typed wrappers over the socket calls the server makes. Non-blocking throughout:
/// "would block" is a `nil` result, not an error.
public enum Socket {
    /// A listening TCP socket on `address` (4 or 16 bytes), non-blocking, close-on-exec,
    /// SO_REUSEADDR; IPv6 sockets are IPv6-only so `[::]` and `0.0.0.0` can both be bound.
    public static func listenTCP(address: [UInt8], port: UInt16, backlog: Int32 = 1024) throws(Errno) -> Int32 {
        precondition(address.count == 4 || address.count == 16)
        let family = address.count == 4 ? AF_INET : AF_INET6
        let fd = try retryingEINTR { socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if family == AF_INET6 {
                try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1)
            }
            var storage = sockaddr_storage()
            let length = fill(&storage, address: address, port: port)
            try bindAndListen(fd, &storage, length: length, backlog: backlog)
            return fd
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// A listening Unix socket at `path`. A stale socket file from an earlier run is removed
    /// first; anything else at that path is left alone (bind then fails with EADDRINUSE).
    public static func listenUnix(path: String, backlog: Int32 = 1024) throws(Errno) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < relaydeck_sun_path_size() else { throw Errno.nameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK {
            unlink(path)
        }
        let fd = try retryingEINTR { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
            try bindAndListen(fd, &address, length: length, backlog: backlog)
            return fd
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    public struct Accepted: Sendable {
        public let fd: Int32
        public let peer: PeerAddress
    }

    /// The next pending connection, non-blocking and close-on-exec, or nil when none waits.
    public static func accept(_ listener: Int32) throws(Errno) -> Accepted? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = relaydeck_accept(listener, &storage, &length)
            if fd >= 0 {
                return Accepted(fd: fd, peer: peer(from: storage))
            }
            let error = Errno.current
            switch error {
            case .interrupted: continue
            case .wouldBlock: return nil
            // The client gave up before we took the connection: try the next one.
            case .connectionAborted: continue
            default: throw error
            }
        }
    }

    /// Reads into `buffer`: the byte count (0 at end of stream), or nil when nothing waits.
    @inline(__always)
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            let error = Errno.current
            if error == .interrupted { continue }
            if error == .wouldBlock { return nil }
            throw error
        }
    }

    /// Writes from `buffer`: the byte count, or nil when the socket buffer is full.
    /// MSG_NOSIGNAL: a closed peer gives EPIPE here, never a SIGPIPE.
    @inline(__always)
    public static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer) throws(Errno) -> Int? {
        while true {
            let n = send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return n }
            let error = Errno.current
            if error == .interrupted { continue }
            if error == .wouldBlock { return nil }
            throw error
        }
    }

    /// The most chunks one `write(_:from:skipping:)` passes to the kernel. A handful is
    /// enough: small answers share a chunk, and a body big enough to have its own chunk
    /// fills a socket buffer by itself.
    public static let maxWriteChunks = 8

    /// Writes `chunks` in order with one system call (the first `maxWriteChunks` of them),
    /// starting `offset` bytes into the first, so a head and a body held in separate arrays
    /// leave together without being joined: the byte count, or nil when the socket buffer is
    /// full. No chunk may be empty. MSG_NOSIGNAL as in `write(_:from:)`.
    public static func write(_ fd: Int32, from chunks: ArraySlice<[UInt8]>, skipping offset: Int) throws(Errno) -> Int? {
        let chunks = chunks.prefix(maxWriteChunks)
        precondition(!chunks.isEmpty && offset < chunks.first!.count)
        if chunks.count == 1, let only = chunks.first {
            // Most answers are one chunk: `send` takes a plain buffer, and in the kernel it
            // is measurably cheaper than `sendmsg` with its message header and vector.
            let result: Result<Int?, Errno> = only.withUnsafeBytes { raw in
                do throws(Errno) {
                    return .success(try write(fd, from: UnsafeRawBufferPointer(rebasing: raw[offset...])))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
        while true {
            let (n, error) = withUnsafeTemporaryAllocation(of: iovec.self, capacity: chunks.count) { vectors in
                pinning(chunks, skipping: offset, into: vectors, at: 0) {
                    var message = msghdr()
                    message.msg_iov = vectors.baseAddress
                    message.msg_iovlen = vectors.count
                    let n = sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                    return (n, n < 0 ? Errno.current : nil)
                }
            }
            guard let error else { return n }
            if error == .interrupted { continue }
            if error == .wouldBlock { return nil }
            throw error
        }
    }

    /// Points `vectors[index...]` at `chunks` and runs `send` while every one of them is held
    /// by its own `withUnsafeBytes`: Swift promises an array's address only inside that call.
    private static func pinning<R>(_ chunks: ArraySlice<[UInt8]>, skipping offset: Int, into vectors: UnsafeMutableBufferPointer<iovec>,
                                   at index: Int, _ send: () -> R) -> R {
        guard let chunk = chunks.first else { return send() }
        return chunk.withUnsafeBytes { raw in
            let skip = index == 0 ? offset : 0
            vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + skip), iov_len: raw.count - skip)
            return pinning(chunks.dropFirst(), skipping: offset, into: vectors, at: index + 1, send)
        }
    }

    public static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    public static func close(_ fd: Int32) {
        // Linux releases the descriptor even when close reports EINTR: never retry.
        _ = Glibc.close(fd)
    }

    public static func setNoDelay(_ fd: Int32) {
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    /// TCP keepalive on a connected socket: the first probe after `idle` seconds without
    /// traffic, then one every `interval` seconds, the connection given up after `count`
    /// unanswered (so a peer gone silently, or a NAT that forgot the flow, is noticed within
    /// idle + interval × count seconds on a connection that only listens).
    public static func setKeepalive(_ fd: Int32, idle: Int32, interval: Int32, count: Int32) throws(Errno) {
        try setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        try setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle)
        try setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, interval)
        try setOption(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, count)
    }

    public static func setNonBlocking(_ fd: Int32) throws(Errno) {
        try retryingEINTR { relaydeck_set_nonblocking(fd) }
        try retryingEINTR { relaydeck_set_cloexec(fd) }
    }

    /// The port a TCP socket is bound to (for `LISTEN=127.0.0.1:0`).
    public static func localPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0, case .ip(_, let port) = peer(from: storage) else { return nil }
        return port
    }

    /// True for a stream socket in the listening state (checks a socket-activated descriptor).
    public static func isListeningStream(_ fd: Int32) -> Bool {
        (try? getOption(fd, SOL_SOCKET, SO_ACCEPTCONN)) == 1
            && (try? getOption(fd, SOL_SOCKET, SO_TYPE)) == Int32(SOCK_STREAM.rawValue)
    }

    /// Binds `fd` to a socket address of any family and starts listening.
    private static func bindAndListen<Address>(_ fd: Int32, _ address: inout Address, length: socklen_t, backlog: Int32) throws(Errno) {
        _ = try withUnsafePointer(to: &address) { pointer throws(Errno) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(Errno) in
                try retryingEINTR { bind(fd, raw, length) }
            }
        }
        try retryingEINTR { listen(fd, backlog) }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(Errno) {
        var value = value
        try retryingEINTR { setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    public static func getOption(_ fd: Int32, _ level: Int32, _ name: Int32) throws(Errno) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try retryingEINTR { getsockopt(fd, level, name, &value, &length) }
        return value
    }

    /// Writes the socket address of `address` (4 bytes: IPv4, 16: IPv6) and `port` into
    /// `storage`; returns its length.
    public static func fill(_ storage: inout sockaddr_storage, address: [UInt8], port: UInt16) -> socklen_t {
        withUnsafeMutablePointer(to: &storage) { pointer in
            if address.count == 4 {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    v4.pointee.sin_family = sa_family_t(AF_INET)
                    v4.pointee.sin_port = port.bigEndian
                    withUnsafeMutableBytes(of: &v4.pointee.sin_addr) { $0.copyBytes(from: address) }
                    return socklen_t(MemoryLayout<sockaddr_in>.size)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                v6.pointee.sin6_family = sa_family_t(AF_INET6)
                v6.pointee.sin6_port = port.bigEndian
                withUnsafeMutableBytes(of: &v6.pointee.sin6_addr) { $0.copyBytes(from: address) }
                return socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
        }
    }

    static func peer(from storage: sockaddr_storage) -> PeerAddress {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    let bytes = withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) }
                    return .ip(bytes: bytes, port: UInt16(bigEndian: v4.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    let bytes = withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) }
                    return .ip(bytes: bytes, port: UInt16(bigEndian: v6.pointee.sin6_port))
                }
            }
        default:
            return .unix
        }
    }
}
