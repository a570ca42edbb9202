/// The rule that lets one SQL text bind the same values in both dialects (`StoreSession`):
/// each `$N` first appears after `$1` to `$(N-1)`; a parameter used again may appear anywhere.
///
/// Checked in debug builds only, by each session before it runs a statement. The SQL is the
/// program's fixed text (named constants), so the order is a property of the source and the
/// first test that runs a statement finds it; a release build does not scan a few hundred bytes
/// more per statement on a path where a whole task GET costs about 14 µs. SQLite's own
/// reading (`sqlite3_bind_parameter_name`) is not reachable from the domain, which sees
/// statements only through the SQLite target.
public enum ParameterOrder {
    /// Throws `parametersOutOfOrder` when a `$N` first appears before `$(N-1)` has. String
    /// literals, quoted names and comments are skipped; a `$` inside a name (`a$1`) is part of
    /// it. PostgreSQL's dollar-quoted strings are not read as strings (SQLite has none).
    public static func check(_ sql: String) throws(StoreSessionError) {
        let bytes = Array(sql.utf8)
        var highest = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                index = end(of: byte, in: bytes, after: index)
            case UInt8(ascii: "-") where next(bytes, index) == UInt8(ascii: "-"):
                index = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            case UInt8(ascii: "/") where next(bytes, index) == UInt8(ascii: "*"):
                index = endOfComment(in: bytes, after: index)
            case UInt8(ascii: "$") where index == 0 || !isNamePart(bytes[index - 1]):
                var number = 0
                var digits = index + 1
                while digits < bytes.count, isDigit(bytes[digits]), number <= 999_999 {
                    number = number * 10 + Int(bytes[digits] - UInt8(ascii: "0"))
                    digits += 1
                }
                if digits > index + 1 {
                    if number > highest + 1 {
                        throw StoreSessionError(.parametersOutOfOrder,
                                                "$\(number) appears before $\(highest + 1)", sql: sql)
                    }
                    highest = max(highest, number)
                }
                index = digits
            default:
                index += 1
            }
        }
    }

    /// The index after the quote that closes the one at `start` (a doubled quote is inside).
    private static func end(of quote: UInt8, in bytes: [UInt8], after start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == quote {
                if next(bytes, index) == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return bytes.count
    }

    private static func endOfComment(in bytes: [UInt8], after start: Int) -> Int {
        var index = start + 2
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") { return index + 2 }
            index += 1
        }
        return bytes.count
    }

    private static func next(_ bytes: [UInt8], _ index: Int) -> UInt8? {
        index + 1 < bytes.count ? bytes[index + 1] : nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isNamePart(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }
}
