import Clock

/// What one request may cost, each bound checked as the bytes arrive, so an answer never
/// takes more memory or time than these allow, whatever the peer sends.
public struct HTTPClientLimits: Sendable, Equatable {
    /// The whole request: the name lookup, the connect, TLS, writing and the answer. A peer
    /// that stalls or trickles ends here.
    public var timeout: TimeSpan
    /// The answer's head: the status line and every header line with their line ends
    /// (interim `1xx` heads count too).
    public var maxHeadBytes: Int
    public var maxHeaderCount: Int
    /// The answer's body, after any chunked framing is taken off.
    public var maxBodyBytes: Int
    /// A chunk's size line, its extensions included.
    public var maxChunkLineBytes: Int
    /// The trailer section after the last chunk (read and dropped).
    public var maxTrailerBytes: Int

    public init(timeout: TimeSpan = .seconds(30), maxHeadBytes: Int = 16 * 1024, maxHeaderCount: Int = 100,
                maxBodyBytes: Int = 1024 * 1024, maxChunkLineBytes: Int = 1024, maxTrailerBytes: Int = 4096) {
        self.timeout = timeout
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
        self.maxTrailerBytes = maxTrailerBytes
    }
}
