/// Builds frontend messages (protocol 3.0) into one byte array: a type byte, then an Int32
/// length that counts itself and the body, then the body; integers are big-endian, strings
/// end in NUL. Several messages go into one writer, so a batch leaves in one write.
struct MessageWriter {
    private(set) var bytes: [UInt8] = []
    private var start = -1

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Starts a message of `type`; `nil` for the start-up messages, which have no type byte.
    mutating func begin(_ type: UInt8?) {
        precondition(start < 0, "a message begun inside another")
        if let type { bytes.append(type) }
        start = bytes.count
        int32(0)
    }

    /// Ends the message begun last: its length goes in.
    mutating func end() {
        precondition(start >= 0, "a message ended that was not begun")
        let length = UInt32(bytes.count - start)
        bytes[start] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[start + 1] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[start + 3] = UInt8(truncatingIfNeeded: length)
        start = -1
    }

    mutating func int16(_ value: Int16) {
        let bits = UInt16(bitPattern: value)
        bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        bytes.append(UInt8(truncatingIfNeeded: bits))
    }

    mutating func int32(_ value: Int32) {
        let bits = UInt32(bitPattern: value)
        bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        bytes.append(UInt8(truncatingIfNeeded: bits))
    }

    /// The UTF-8 of `text` and a NUL. A NUL inside would end the string early on the server:
    /// the callers keep them out (the settings refuse them; SQL text is the program's).
    mutating func cString(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// The UTF-8 of `text`, without a NUL.
    mutating func utf8(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func raw(_ data: [UInt8]) {
        bytes.append(contentsOf: data)
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    var isEmpty: Bool { bytes.isEmpty }
}
