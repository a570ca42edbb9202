#if canImport(Glibc)
import Glibc
#endif

/// Renders one log line, without the newline. Kept apart from `Log` so tests can check
/// the exact text for a fixed time.
///
/// For the journal (`journal`) a line starts with its syslog priority, `<3>` to `<7>`, which
/// journald takes off and keeps as the entry's PRIORITY (`journalctl -p err`); a text line
/// then has no time of its own, since the journal stamps each entry. A JSON line keeps its
/// `time` (a shipper reading `journalctl -o cat` wants the event's own time) and, after the
/// prefix journald removes, is still one JSON object.
public enum LogLine {
    public static func render(level: LogLevel, message: String, fields: KeyValuePairs<String, String>, json: Bool,
                              journal: Bool = false, unixMillis: Int64) -> String {
        let time = iso8601(unixMillis: unixMillis)
        let prefix = journal ? "<\(level.syslogPriority)>" : ""
        if json {
            var out = prefix + "{\"time\":\"\(time)\",\"level\":\"\(level.name)\",\"msg\":"
            appendJSONString(message, to: &out)
            for (key, value) in fields {
                out += ","
                appendJSONString(key, to: &out)
                out += ":"
                appendJSONString(value, to: &out)
            }
            out += "}"
            return out
        }
        var out = (journal ? prefix : time + " ") + "\(level.name) \(oneLine(message))"
        for (key, value) in fields {
            out += " \(key)="
            if value.isEmpty || value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x7F }) {
                appendJSONString(value, to: &out)
            } else {
                out += value
            }
        }
        return out
    }

    /// `2026-11-29T14:23:41.123Z`
    public static func iso8601(unixMillis: Int64) -> String {
        var seconds = time_t(unixMillis / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = Int(unixMillis % 1000)
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(millis, 3))Z"
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// A message never spans lines: a newline in it would forge a second log event.
    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }

    static func appendJSONString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
