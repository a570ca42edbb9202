#if canImport(Glibc)
import Glibc
#endif

/// The environment of this process, for `Config.load`.
enum ProcessEnvironment {
    /// Every `NAME=value` of `environ`. When a name appears twice the first wins, as with
    /// `getenv`. Bytes that are not UTF-8 become U+FFFD, which no setting accepts.
    static func current() -> [String: String] {
        var result: [String: String] = [:]
        // `environ` is only NULL after clearenv(3), which this process never calls.
        var entry = environ
        while let pointer = entry.pointee {
            let length = strlen(pointer)
            let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: bytes[..<equals], as: UTF8.self)
                if result[name] == nil {
                    result[name] = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
                }
            }
            entry += 1
        }
        return result
    }
}
