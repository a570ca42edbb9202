/// Why a connection string was refused, in words that never hold its password (the caller
/// adds the variable's name: `DATABASE_URL: ...`).
public struct PostgresSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// A value for a message, in double quotes, cut to 64 characters, with nothing that could
    /// break the line. Only for values that are not secret.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == 64 { return out + "\"..." }
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\"" || scalar == "\\" {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
