import CLinux

/// What a registration waits for.
public struct Interest: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = Interest(rawValue: EPOLLIN.rawValue)
    public static let writable = Interest(rawValue: EPOLLOUT.rawValue)
    /// The peer shut down its writing side; reported even while input is not being read.
    public static let peerClosed = Interest(rawValue: EPOLLRDHUP.rawValue)
}

/// What epoll reported for a descriptor.
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = IOEvents(rawValue: EPOLLIN.rawValue)
    public static let writable = IOEvents(rawValue: EPOLLOUT.rawValue)
    public static let peerClosed = IOEvents(rawValue: EPOLLRDHUP.rawValue)
    public static let hangup = IOEvents(rawValue: EPOLLHUP.rawValue)
    public static let error = IOEvents(rawValue: EPOLLERR.rawValue)
}

/// The object that owns a registered descriptor. The loop keeps it alive while registered.
public protocol IOHandler: AnyObject {
    func handleIO(_ events: IOEvents)
}

/// A registered descriptor. `generation` tells this registration apart from an earlier one
/// of the same (closed and reused) descriptor number.
public struct IORegistration: Sendable, Equatable {
    public let fd: Int32
    public let generation: UInt32
}
