/// The fields of an ErrorResponse or NoticeResponse that this client keeps. Left out on
/// purpose: DETAIL (a unique violation's key values, the bound data), WHERE and the
/// internal query (they can quote the values too), and the hint.
struct ServerNotice: Equatable {
    var severity = ""
    var sqlState = ""
    var message = ""
    var constraint: String?

    static func parse(_ reader: inout MessageReader) throws(PostgresError) -> ServerNotice {
        var notice = ServerNotice()
        while true {
            let field = try reader.byte()
            if field == 0 { break }
            let value = try reader.cString()
            switch field {
            // `V` is never translated, `S` may be; prefer `V` when both come.
            case UInt8(ascii: "V"): notice.severity = value
            case UInt8(ascii: "S"): if notice.severity.isEmpty { notice.severity = value }
            case UInt8(ascii: "C"): notice.sqlState = value
            case UInt8(ascii: "M"): notice.message = value
            case UInt8(ascii: "n"): notice.constraint = value
            default: break
            }
        }
        return notice
    }

    /// As an error: a data exception's message (class 22: `invalid input syntax for type
    /// integer: "abc"`) quotes the value given, which is a parameter's; it is cut there.
    var error: PostgresError {
        var text = message
        if sqlState.hasPrefix("22"), let quote = text.firstRange(of: ": \"") {
            text = String(text[..<quote.lowerBound]) + ": (the value is not shown)"
        }
        return PostgresError(.server, text, sqlState: sqlState.isEmpty ? nil : sqlState, constraint: constraint)
    }
}
