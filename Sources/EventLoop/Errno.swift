#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// A typed errno. System calls in this module go through `retryingEINTR`, so callers see
/// either a result or one of these, never EINTR.
public struct Errno: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The errno of the last failed call on this thread.
    public static var current: Errno { Errno(relaydeck_errno()) }

    public static let wouldBlock = Errno(EAGAIN)
    public static let interrupted = Errno(EINTR)
    public static let badDescriptor = Errno(EBADF)
    public static let connectionReset = Errno(ECONNRESET)
    public static let brokenPipe = Errno(EPIPE)
    public static let tooManyOpenFiles = Errno(EMFILE)
    public static let tooManyOpenFilesInSystem = Errno(ENFILE)
    public static let addressInUse = Errno(EADDRINUSE)
    public static let noSuchFile = Errno(ENOENT)
    public static let notPermitted = Errno(EPERM)
    public static let accessDenied = Errno(EACCES)
    public static let invalidArgument = Errno(EINVAL)
    public static let noBufferSpace = Errno(ENOBUFS)
    public static let noMemory = Errno(ENOMEM)
    public static let connectionAborted = Errno(ECONNABORTED)
    public static let nameTooLong = Errno(ENAMETOOLONG)

    public var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return "\(String(cString: text)) (errno \(rawValue))"
    }
}

/// Runs a system call until it is not interrupted; a negative result becomes the errno.
@inline(__always)
@discardableResult
func retryingEINTR<T: BinaryInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result >= 0 { return result }
        let error = Errno.current
        if error == .interrupted { continue }
        throw error
    }
}
