/// What `HTTPRequestParser.parse(_:)` saw in the bytes it was given.
public enum HTTPParserEvent: Sendable {
    /// Every byte given was consumed and none completed a head or a body: give more bytes.
    case needMore
    /// A request head is complete. Call again (even with no bytes) for the body and `.end`.
    /// With `Expect: 100-continue` the connection sends `100 Continue` now.
    case head(HTTPRequestHead)
    /// The request whose head came before is complete; `body` is decoded (no chunk framing).
    case end(body: [UInt8])
    /// The request is refused: answer `error.status` and close the connection.
    case error(HTTPParseError)
}
