/// Bounds on what one request may make the server hold. A value exactly at a limit passes;
/// one byte (or field) more is refused with the status named on each limit.
public struct HTTPParserLimits: Sendable {
    /// The request target; over -> 414.
    public var maxTargetBytes = 8 * 1024
    /// The request line without its CRLF: the target limit and room for a method and the
    /// version; over -> 414, found before the CRLF arrives.
    public var maxRequestLineBytes = 8 * 1024 + 64
    /// Request line, fields and every CRLF up to and including the blank line (leading empty
    /// lines not counted); over -> 431, found before the blank line arrives.
    public var maxHeadBytes = 16 * 1024
    /// Field lines in the head; over -> 431.
    public var maxHeaderCount = 100
    /// Body bytes after chunked decoding; over -> 413. With Content-Length this is decided
    /// from the header, before any body byte is read.
    public var maxBodyBytes = 1_048_576
    /// A chunk size line with its extensions, without its CRLF; over -> 400.
    public var maxChunkLineBytes = 1024
    /// The trailer section after the last chunk, with its CRLFs and the final blank line;
    /// over -> 431.
    public var maxTrailerBytes = 8 * 1024

    public init() {}
}
