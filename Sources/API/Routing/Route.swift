import HTTP
import Relaydeck

/// A path pattern such as `/v1/keys/{key_id}`, and the endpoints that answer on it.
struct Route {
    enum Segment: Equatable {
        case literal([UInt8])
        case parameter(String)
    }

    /// The pattern as logged and recorded (never an ID).
    let pattern: String
    let segments: [Segment]
    let endpoints: [Endpoint]
    /// The activity log's `surface` of every request that matches (`/mcp` is `mcp`).
    let surface: ActivityEntry.Surface

    init(_ pattern: String, surface: ActivityEntry.Surface = .rest, _ endpoints: [Endpoint]) {
        self.pattern = pattern
        self.endpoints = endpoints
        self.surface = surface
        segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
    }

    /// The named parameters when `path` matches this pattern.
    func match(_ path: [ArraySlice<UInt8>]) -> PathParameters? {
        guard path.count == segments.count else { return nil }
        var parameters = PathParameters()
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let bytes):
                guard part.elementsEqual(bytes) else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters.values.append((name, String(decoding: part, as: UTF8.self)))
            }
        }
        return parameters
    }

    var allowedMethods: [HTTPMethod] {
        var methods = endpoints.map(\.method)
        if let get = methods.firstIndex(of: .get) { methods.insert(.head, at: get + 1) }
        return methods
    }

    /// The endpoint for `method`; HEAD is answered by GET.
    func endpoint(for method: HTTPMethod) -> Endpoint? {
        let wanted = method == .head ? HTTPMethod.get : method
        return endpoints.first { $0.method == wanted }
    }

    /// Splits a path into its segments after the leading `/`.
    static func segments(of path: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        guard path.first == UInt8(ascii: "/") else { return [] }
        return path.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    }
}

/// The values of a route's `{name}` segments, by name.
struct PathParameters {
    fileprivate(set) var values: [(name: String, value: String)] = []

    /// The value of `{name}`. A name the pattern does not have is a defect of the route,
    /// answered as a logged 500, never as an empty string.
    func callAsFunction(_ name: String) throws(APIError) -> String {
        guard let value = values.first(where: { $0.name == name })?.value else {
            throw APIError.defect("the route has no parameter \(name)")
        }
        return value
    }
}
