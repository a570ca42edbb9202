import EventLoop

/// The bounds of one connection, so that no server (a broken one, or one in the middle that
/// should not be) can grow the client's memory without end or hold it forever.
public struct PostgresLimits: Sendable {
    /// From the start (the name lookup) to the server's first ReadyForQuery.
    public var connectTimeout = TimeSpan.seconds(10)
    /// From a batch's write to its last answer. Past it the connection closes: the server
    /// may still be working, but nothing it says can be matched to anything any more.
    public var queryTimeout = TimeSpan.seconds(30)
    /// The largest DataRow (one row, all its columns).
    public var maxRowBytes = 16 << 20
    /// The rows of one statement's result together.
    public var maxResultBytes = 64 << 20
    /// Every other message (errors, row descriptions, parameter status): they are small.
    public var maxOtherMessageBytes = 1 << 20
    /// Batches sent and not yet answered; `run` refuses past it.
    public var maxBatchesInFlight = 1024
    /// Statements prepared by name and kept; past it, new SQL runs unnamed each time.
    public var maxPreparedStatements = 1024
    /// SCRAM's iteration count comes from the server, and each iteration costs an HMAC on the
    /// loop: PostgreSQL's default is 4096; a count above this is refused.
    public var maxSCRAMIterations = 100_000
    /// How many reads one readable event takes at most before the loop's other work (timers,
    /// other connections) gets its turn.
    public var readsPerEvent = 16

    /// A NOTIFY payload is under 8000 bytes in PostgreSQL, a channel name at most 63; the
    /// message adds the process ID and two NULs.
    public static let maxNotificationBytes = 8_000 + 64 + 6

    public init() {}

    func maxBytes(ofMessage type: UInt8) -> Int {
        switch type {
        case UInt8(ascii: "D"): maxRowBytes
        case UInt8(ascii: "A"): Self.maxNotificationBytes
        default: maxOtherMessageBytes
        }
    }
}
