/// The two spellings libpq reads, taken apart into keywords: the URL
/// (`postgres://user:password@host:5432/db?sslmode=verify-full`, also `postgresql://`) and
/// the keyword/value string (`host=db.internal user=relaydeck sslmode=verify-full`). Values
/// come out percent-decoded (URL) or unquoted (keyword/value); checking them is
/// `PostgresSettings.parse`'s.
enum ConnectionString {
    static func keywords(_ text: String) throws(PostgresSettingsError) -> [(String, String)] {
        for scheme in ["postgres://", "postgresql://"] where text.hasPrefix(scheme) {
            return try url(Substring(text.utf8.dropFirst(scheme.utf8.count)))
        }
        if text.contains("://") {
            throw PostgresSettingsError("is a URL of another scheme; expected postgres:// or postgresql://")
        }
        guard text.contains("=") else {
            throw PostgresSettingsError("expected a postgres:// URL or keyword=value pairs")
        }
        return try keywordValue(text)
    }

    /// `[user[:password]@][host][:port][/dbname][?key=value&...]`
    private static func url(_ rest: Substring) throws(PostgresSettingsError) -> [(String, String)] {
        var rest = rest
        var result: [(String, String)] = []
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        // The user part ends at the last @ (a password may hold / unencoded, as people write
        // them); the host part at the first / after it.
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                result.append(("user", try decode(userInfo[..<colon], part: "the user name")))
                result.append(("password", try decode(userInfo[userInfo.index(after: colon)...], part: "the password")))
            } else if !userInfo.isEmpty {
                result.append(("user", try decode(userInfo, part: "the user name")))
            }
        }
        var authority = rest
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            let name = rest[rest.index(after: slash)...]
            if !name.isEmpty { result.append(("dbname", try decode(name, part: "the database name"))) }
        }
        if authority.contains(",") {
            throw PostgresSettingsError("names several hosts; give one (a load balancer or DNS name in front of several)")
        }
        var hostPart = authority
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw PostgresSettingsError("has an IPv6 address without its closing ]")
            }
            result.append(("host", String(authority[authority.index(after: authority.startIndex)..<close])))
            hostPart = authority[authority.index(after: close)...]
            if !hostPart.isEmpty && !hostPart.hasPrefix(":") {
                throw PostgresSettingsError("has text after the IPv6 address's ]")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[colon...]
            let host = authority[..<colon]
            if !host.isEmpty { result.append(("host", try decode(host, part: "the host"))) }
        } else {
            if !authority.isEmpty { result.append(("host", try decode(authority, part: "the host"))) }
            hostPart = ""
        }
        if hostPart.hasPrefix(":") {
            let port = hostPart.dropFirst()
            if !port.isEmpty { result.append(("port", String(port))) }
        }
        if let query {
            for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
                guard let equals = pair.firstIndex(of: "=") else {
                    // Not quoted: a password mistyped into the query would show.
                    throw PostgresSettingsError("has a query parameter without = and a value")
                }
                let key = try decode(pair[..<equals], part: "a query parameter's name")
                result.append((key, try decode(pair[pair.index(after: equals)...], part: "the value of \(key)")))
            }
        }
        return result
    }

    /// `%XX` decoded; the bytes must then be UTF-8.
    private static func decode(_ text: Substring, part: String) throws(PostgresSettingsError) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw PostgresSettingsError("has a % in \(part) that is not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw PostgresSettingsError("has \(part) that is not UTF-8 once decoded")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `key=value` pairs separated by spaces; a value may be in single quotes, where `\'`
    /// and `\\` stand for a quote and a backslash (libpq's rules).
    private static func keywordValue(_ text: String) throws(PostgresSettingsError) -> [(String, String)] {
        var result: [(String, String)] = []
        var scalars = Array(text.unicodeScalars)[...]
        func skipSpaces() { while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() } }
        skipSpaces()
        while !scalars.isEmpty {
            var key = ""
            while let first = scalars.first, first != "=", !first.properties.isWhitespace {
                key.unicodeScalars.append(scalars.removeFirst())
            }
            skipSpaces()
            guard scalars.first == "=" else {
                throw PostgresSettingsError("has \(PostgresSettingsError.quoted(key)) without = and a value")
            }
            scalars.removeFirst()
            skipSpaces()
            var value = ""
            if scalars.first == "'" {
                scalars.removeFirst()
                var closed = false
                while let next = scalars.first {
                    scalars.removeFirst()
                    if next == "'" { closed = true; break }
                    if next == "\\", let escaped = scalars.first {
                        scalars.removeFirst()
                        value.unicodeScalars.append(escaped)
                    } else {
                        value.unicodeScalars.append(next)
                    }
                }
                guard closed else { throw PostgresSettingsError("has a quoted value of \(key) without its closing quote") }
            } else {
                while let first = scalars.first, !first.properties.isWhitespace {
                    scalars.removeFirst()
                    if first == "\\", let escaped = scalars.first {
                        scalars.removeFirst()
                        value.unicodeScalars.append(escaped)
                    } else {
                        value.unicodeScalars.append(first)
                    }
                }
            }
            result.append((key, value))
            skipSpaces()
        }
        return result
    }
}
