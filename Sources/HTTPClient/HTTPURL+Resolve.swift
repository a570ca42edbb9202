extension HTTPURL {
    /// The URL a reference names when read against this one (RFC 3986 section 5.2): what a
    /// `Location` header means. A reference is absolute (`https://other/x`), network-path
    /// (`//other/x`), absolute-path (`/x`), relative-path (`x`, `../x`), query-only (`?q`) or
    /// empty; its fragment is dropped. A scheme other than `http:` or `https:` is refused.
    public func resolving(_ reference: String) throws(Refusal) -> HTTPURL {
        guard reference.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Refusal(reason: "a reference with a byte that is not visible ASCII")
        }
        var text = Substring(reference)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        if Self.hasScheme(text) || text.hasPrefix("//") {
            let absolute = text.hasPrefix("//") ? scheme.rawValue + ":" + text : String(text)
            let parsed = try HTTPURL(absolute)
            return try HTTPURL(scheme: parsed.scheme, host: parsed.host, port: parsed.port,
                               pathAndQuery: Self.withoutDotSegments(parsed.target))
        }
        let queryStart = text.firstIndex(of: "?") ?? text.endIndex
        let referencePath = text[..<queryStart]
        let query = text[queryStart...]
        let merged: String
        if referencePath.isEmpty {
            let ownQuery = target[(target.firstIndex(of: "?") ?? target.endIndex)...]
            merged = String(path) + (query.isEmpty ? ownQuery : query)
        } else if referencePath.hasPrefix("/") {
            merged = Self.removingDotSegments(referencePath) + query
        } else {
            // The base path up to its last slash, then the reference's (RFC 3986 5.2.3).
            let directory = path[...(path.lastIndex(of: "/") ?? path.startIndex)]
            merged = Self.removingDotSegments(directory + referencePath) + query
        }
        return try HTTPURL(scheme: scheme, host: host, port: port, pathAndQuery: Substring(merged))
    }

    /// `scheme ":"` at the start: a letter, then letters, digits, `+`, `-` or `.`.
    private static func hasScheme(_ text: Substring) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let name = text[..<colon].utf8
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        return isLetter(name.first!) && name.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    private static func withoutDotSegments(_ target: String) -> Substring {
        let queryStart = target.firstIndex(of: "?") ?? target.endIndex
        return Substring(removingDotSegments(target[..<queryStart]) + target[queryStart...])
    }

    /// RFC 3986 section 5.2.4, step by step: `.` and `..` segments removed, a `..` taking the
    /// segment before it with it (never above the root).
    static func removingDotSegments(_ path: Substring) -> String {
        var input = path
        var output = ""
        func dropLastSegment() {
            output = String(output[..<(output.lastIndex(of: "/") ?? output.startIndex)])
        }
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                dropLastSegment()
            } else if input == "/.." {
                input = "/"
                dropLastSegment()
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let searchFrom = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[searchFrom...].firstIndex(of: "/") ?? input.endIndex
                output += input[..<end]
                input = input[end...]
            }
        }
        return output
    }
}
