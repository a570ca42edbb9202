/// A response status line and fields, written straight into the connection's out buffer.
public struct HTTPResponseHead: Sendable {
    /// The status code; one outside 100...999 is written as 500 (a defect, not a crash).
    public var status: Int
    /// Extra fields, written as given, in order. Content-Length, Date and Connection are
    /// written by `write(into:...)` and must not be repeated here. A field whose name is not
    /// a token or whose value holds a control byte (CR, LF, NUL, ...) is dropped.
    public var headers: [(name: String, value: String)]

    public init(status: Int, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = headers
    }

    /// The interim answer to `Expect: 100-continue`, sent before reading the body.
    public static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Appends "HTTP/1.1 <status> <reason>\r\n", the extra fields, then
    /// "Content-Length: N\r\n" when `contentLength` is not nil (and not negative),
    /// "Date: <date>\r\n", "Connection: close\r\n" when `!keepAlive`,
    /// "Connection: keep-alive\r\n" when `keepAlive` and the request was HTTP/1.0
    /// (a 1.0 client closes otherwise), and the final "\r\n".
    public func write(into buffer: inout [UInt8], contentLength: Int?, keepAlive: Bool, requestVersion: HTTPVersion, date: HTTPDate) {
        let code = (100...999).contains(status) ? status : 500
        Self.append("HTTP/1.1 ", to: &buffer)
        Self.appendDecimal(code, to: &buffer)
        buffer.append(ASCII.sp)
        var reason = HTTPStatus.reasonPhrase(code)
        reason.withUTF8 { buffer.append(contentsOf: $0) }
        Self.append("\r\n", to: &buffer)
        for field in headers {
            Self.appendField(field.name, field.value, to: &buffer)
        }
        if let length = contentLength, length >= 0 {
            Self.append("Content-Length: ", to: &buffer)
            Self.appendDecimal(length, to: &buffer)
            Self.append("\r\n", to: &buffer)
        }
        Self.append("Date: ", to: &buffer)
        buffer.append(contentsOf: date.bytes)
        Self.append("\r\n", to: &buffer)
        if !keepAlive {
            Self.append("Connection: close\r\n", to: &buffer)
        } else if requestVersion == .http10 {
            Self.append("Connection: keep-alive\r\n", to: &buffer)
        }
        Self.append("\r\n", to: &buffer)
    }

    /// Appends `name: value` CRLF, unless the field would break the head (response
    /// splitting): then it is dropped, not trapped on, so a defect elsewhere costs one
    /// field, not the process. The check runs on the bytes being copied.
    private static func appendField(_ name: String, _ value: String, to buffer: inout [UInt8]) {
        var name = name
        var value = value
        name.withUTF8 { n in
            value.withUTF8 { v in
                guard !n.isEmpty, n.allSatisfy(ASCII.isTchar),
                      ASCII.areFieldValueBytes(UnsafeRawBufferPointer(v), from: 0, to: v.count)
                else { return }
                buffer.append(contentsOf: n)
                append(": ", to: &buffer)
                buffer.append(contentsOf: v)
                append("\r\n", to: &buffer)
            }
        }
    }

    private static func append(_ text: StaticString, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a non-negative Int in decimal without building a String.
    private static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 19 digits
        withUnsafeMutableBytes(of: &digits) { raw in
            var n = value
            var i = raw.count
            repeat {
                i -= 1
                raw[i] = UInt8(truncatingIfNeeded: 0x30 + n % 10)
                n /= 10
            } while n > 0
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[i...]))
        }
    }
}
