import Crypto
import Relaydeck

/// The parameters of a query string (`limit=50&status=todo,done`), percent-decoded, `+` as a
/// space. A parameter that is not valid percent-encoded UTF-8 is a problem of its own.
enum QueryString {
    struct Parameter {
        let name: String
        let value: String
    }

    static func parse(_ query: Substring) -> (parameters: [Parameter], problems: [FieldProblem]) {
        var parameters: [Parameter] = []
        var problems: [FieldProblem] = []
        for pair in query.utf8.split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = pair[..<(equals ?? pair.endIndex)]
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            guard let name = decode(rawName), !name.isEmpty else {
                if !rawName.isEmpty { problems.append(FieldProblem("query", "Must be valid percent-encoded UTF-8.")) }
                continue
            }
            guard let value = decode(rawValue) else {
                problems.append(FieldProblem(name, "Must be valid percent-encoded UTF-8."))
                continue
            }
            parameters.append(Parameter(name: name, value: value))
        }
        return (parameters, problems)
    }

    /// Percent-decoding (RFC 3986 2.1) and `+` for a space (HTML forms); nil for a broken
    /// escape or bytes that are not UTF-8.
    static func decode(_ raw: Substring.UTF8View.SubSequence) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                let high = raw.index(after: index)
                guard high < raw.endIndex, raw.index(after: high) < raw.endIndex,
                      let h = Hex.value(raw[high]), let l = Hex.value(raw[raw.index(after: high)]) else { return nil }
                bytes.append(h << 4 | l)
                index = raw.index(high, offsetBy: 2)
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
            index = raw.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
