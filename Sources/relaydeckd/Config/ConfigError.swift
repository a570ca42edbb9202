/// A setting that stops the start: which variable, and what is wrong with it.
///
/// `description` is the one line printed on stderr. Messages may quote a non-secret value
/// through `quoted(_:)`; they never hold a secret (`APP_TOTP_SECRET`, `APNS_PRIVATE_KEY`,
/// the contents of their files, a TLS key, `DATABASE_URL` and the password in it).
struct ConfigError: Error, Equatable, CustomStringConvertible {
    let variable: String
    let message: String

    init(_ variable: String, _ message: String) {
        self.variable = variable
        self.message = message
    }

    /// `LISTEN: expected host:port, [v6]:port or unix:/path (got "x")`, on one line.
    var description: String { "\(variable): \(message)" }

    /// An operator's value for a message: in double quotes, cut to 64 characters (marked
    /// with `...` after the closing quote), with quotes, backslashes and anything not
    /// printable escaped, so the message stays one line whatever the value holds.
    static func quoted(_ value: String) -> String {
        var out = "\""
        var count = 0
        for scalar in value.unicodeScalars {
            if count == 64 { return out + "\"..." }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
                let v = scalar.value
                if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 {
                    out += "\\u{" + String(v, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
