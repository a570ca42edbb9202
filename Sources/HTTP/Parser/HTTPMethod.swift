/// A request method. The methods the server routes on are cases; any other token is kept
/// as sent (methods are case-sensitive, RFC 9110 9.1, so `get` is `.other("get")`).
public enum HTTPMethod: Sendable, Equatable, Hashable {
    case get, head, post, put, patch, delete, options
    case other(String)

    /// The method token as it appears on the request line.
    public var name: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .other(let name): name
        }
    }

    /// Maps a method token; only an unknown method allocates a String.
    init(token p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) {
        switch end - start {
        case 3:
            if Self.matches(p, start, "GET") { self = .get; return }
            if Self.matches(p, start, "PUT") { self = .put; return }
        case 4:
            if Self.matches(p, start, "POST") { self = .post; return }
            if Self.matches(p, start, "HEAD") { self = .head; return }
        case 5:
            if Self.matches(p, start, "PATCH") { self = .patch; return }
        case 6:
            if Self.matches(p, start, "DELETE") { self = .delete; return }
        case 7:
            if Self.matches(p, start, "OPTIONS") { self = .options; return }
        default:
            break
        }
        self = .other(String(decoding: UnsafeRawBufferPointer(rebasing: p[start..<end]), as: UTF8.self))
    }

    private static func matches(_ p: UnsafeRawBufferPointer, _ start: Int, _ name: StaticString) -> Bool {
        let n = name.utf8Start
        for i in 0..<name.utf8CodeUnitCount where p[start + i] != n[i] { return false }
        return true
    }
}

/// The HTTP versions this server speaks; anything else is refused with 505 or 400.
public enum HTTPVersion: Sendable, Equatable {
    case http10, http11
}
