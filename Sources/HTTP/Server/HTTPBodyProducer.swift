/// A body made in pieces while the client reads it, for an answer that can be large (a page
/// of tasks). The connection asks for the next piece only when what it has queued is below
/// `HTTPConnection.producerLowWater`, and for a few pieces per turn at most, so one large
/// answer never holds the loop for long and a client that reads slowly (or never) holds one
/// piece of encoded bytes at a time, not the whole answer. The body goes out with
/// `Transfer-Encoding: chunked` (an HTTP/1.0 client gets it up to the close).
/// Loop thread only, like the connection that owns it.
public protocol HTTPBodyProducer: AnyObject {
    /// The next piece of the body (empty pieces are skipped), or nil once the body is complete.
    /// A piece should be a few tens of KiB: the connection does not split or merge them.
    func nextPiece() -> [UInt8]?
}
