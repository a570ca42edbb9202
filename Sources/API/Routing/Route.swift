import HTTP
import Relaydeck

/// Who may call an endpoint.
enum Access: Sendable {
    case anyone
    case account
    case apiKey
    case accountOrKey
}

/// One method of one route.
struct Endpoint {
    let method: HTTPMethod
    let access: Access
    /// Whether the endpoint reads a JSON body; others ignore what is sent.
    let takesBody: Bool
    let run: (APIHandler, inout Exchange) throws -> HTTPResponse
}

/// A path pattern such as `/v1/keys/{key_id}`, and what answers on it.
struct Route {
    enum Segment: Equatable {
        case literal([UInt8])
        case parameter
    }

    /// The pattern as logged (never an ID).
    let pattern: String
    let segments: [Segment]
    let endpoints: [Endpoint]

    init(_ pattern: String, _ endpoints: [Endpoint]) {
        self.pattern = pattern
        self.endpoints = endpoints
        segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part.hasPrefix("{") ? .parameter : .literal(Array(part.utf8))
        }
    }

    /// The parameters when `path` matches this pattern.
    func match(_ path: [ArraySlice<UInt8>]) -> [String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String] = []
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let bytes):
                guard part.elementsEqual(bytes) else { return nil }
            case .parameter:
                guard !part.isEmpty else { return nil }
                parameters.append(String(decoding: part, as: UTF8.self))
            }
        }
        return parameters
    }

    var allowedMethods: [HTTPMethod] {
        var methods = endpoints.map(\.method)
        if methods.contains(.get) { methods.insert(.head, at: methods.firstIndex(of: .get)! + 1) }
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
