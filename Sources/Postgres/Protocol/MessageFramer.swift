/// Cuts the server's byte stream into messages (type byte, Int32 length, body), checking each
/// length against the limit for its type as soon as the five bytes of its header are in, so a
/// message that says it holds 2 GB is refused before a byte of its body is kept. What it
/// holds is at most one message under its limit plus one read.
struct MessageFramer {
    private var buffer: [UInt8] = []
    private var start = 0
    let limits: PostgresLimits

    init(limits: PostgresLimits) {
        self.limits = limits
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        // Drop what was handed out before growing, so the buffer never holds old messages.
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, or nil until more bytes come.
    mutating func next() throws(PostgresError) -> (type: UInt8, body: [UInt8])? {
        guard buffer.count - start >= 5 else { return nil }
        let type = buffer[start]
        let length = Int(MessageReader.int32(buffer, at: start + 1))
        guard length >= 4 else {
            throw PostgresError(.protocolViolation, "a message of type \(BackendMessage.name(type)) with a length of \(length)")
        }
        let limit = limits.maxBytes(ofMessage: type)
        guard length - 4 <= limit else {
            throw PostgresError(.protocolViolation,
                "a message of type \(BackendMessage.name(type)) of \(length - 4) bytes, over this client's limit of \(limit)")
        }
        guard buffer.count - start >= 1 + length else { return nil }
        let body = Array(buffer[(start + 5)..<(start + 1 + length)])
        start += 1 + length
        return (type, body)
    }

    /// Bytes received and not yet handed out as a message.
    var pendingBytes: Int { buffer.count - start }
}
