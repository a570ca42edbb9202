/// Reads the body of one backend message, each read checked against what is left: a server
/// that says a string or a field is longer than its message gets a protocol violation,
/// never a read past the end.
struct MessageReader {
    let body: [UInt8]
    private(set) var position = 0

    init(_ body: [UInt8]) {
        self.body = body
    }

    var remaining: Int { body.count - position }

    mutating func byte() throws(PostgresError) -> UInt8 {
        guard remaining >= 1 else { throw Self.short }
        defer { position += 1 }
        return body[position]
    }

    mutating func int16() throws(PostgresError) -> Int16 {
        guard remaining >= 2 else { throw Self.short }
        defer { position += 2 }
        return Int16(bitPattern: UInt16(body[position]) << 8 | UInt16(body[position + 1]))
    }

    mutating func int32() throws(PostgresError) -> Int32 {
        guard remaining >= 4 else { throw Self.short }
        defer { position += 4 }
        return Self.int32(body, at: position)
    }

    static func int32(_ bytes: [UInt8], at index: Int) -> Int32 {
        Int32(bitPattern: UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
            | UInt32(bytes[index + 3]))
    }

    /// A NUL-terminated string, as UTF-8 (bytes that are not UTF-8 are replaced: the
    /// server's messages are text, and a message must still be readable).
    mutating func cString() throws(PostgresError) -> String {
        guard let end = body[position...].firstIndex(of: 0) else { throw Self.short }
        defer { position = end + 1 }
        return String(decoding: body[position..<end], as: UTF8.self)
    }

    mutating func bytes(_ count: Int) throws(PostgresError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw Self.short }
        defer { position += count }
        return body[position..<(position + count)]
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { position = body.count }
        return body[position...]
    }

    private static let short = PostgresError(.protocolViolation, "a message is shorter than its contents")
}
