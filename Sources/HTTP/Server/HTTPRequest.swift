import EventLoop

/// A complete request: head and body, with where and when it came.
public struct HTTPRequest: Sendable {
    public let head: HTTPRequestHead
    public let body: [UInt8]
    public let peer: PeerAddress
    /// When the request was complete, on the loop's monotonic clock.
    public let receivedAt: Instant

    public init(head: HTTPRequestHead, body: [UInt8], peer: PeerAddress, receivedAt: Instant) {
        self.head = head
        self.body = body
        self.peer = peer
        self.receivedAt = receivedAt
    }

    public var method: HTTPMethod { head.method }
}
