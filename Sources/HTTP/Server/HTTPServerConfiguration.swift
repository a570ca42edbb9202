import EventLoop

/// Limits and timeouts of the HTTP server. Every bound has a clear answer when it is hit.
public struct HTTPServerConfiguration: Sendable {
    public var parserLimits = HTTPParserLimits()
    /// From the first byte of a request to the end of its head; a slower client gets 408.
    public var headerTimeout: TimeSpan = .seconds(10)
    /// While a body arrives: the longest pause between two reads, and the grace before
    /// `bodyMinimumRate` applies. A slower body gets 408.
    public var bodyTimeout: TimeSpan = .seconds(10)
    /// The slowest a body may arrive on average, in bytes per second: a body of n bytes must
    /// be in `bodyTimeout + n / rate` after the end of the head (see `BodyDeadline`). 1 KiB/s
    /// (8 kbit/s) is below what any phone link that carries data at all manages, so a 1 MiB
    /// body from a phone with a poor signal still arrives (it may take up to 17 minutes); a
    /// body trickled a byte at a time is cut after about `bodyTimeout`.
    public var bodyMinimumRate = 1024
    /// An idle keep-alive connection is closed after this.
    public var idleTimeout: TimeSpan = .seconds(75)
    /// Open connections at most; one more gets `503` and is closed.
    public var maxConnections = 16384
    /// Bytes a server-sent event stream may have waiting for a slow reader before it is cut off.
    public var maxStreamBacklog = 512 * 1024
    /// Unsent answer bytes past which a connection handles no more requests and is not read
    /// until the client reads them (a pipelining client that does not read). One answer may
    /// take it over by its own size.
    public var maxResponseBacklog = 4 * 1024 * 1024
    /// After an error answer, unread input is drained this long (and this much) before the
    /// close, so the client sees the answer rather than a reset.
    public var lingerTimeout: TimeSpan = .seconds(2)
    public var lingerMaxBytes = 2 * 1024 * 1024
    /// How long a write may stall (the client reads nothing) before the connection is dropped.
    public var writeTimeout: TimeSpan = .seconds(30)

    public init() {}
}
