/// The head of an answer: its status line and header fields.
struct ResponseHead: Sendable, Equatable {
    /// `HTTP/1.1` or `HTTP/1.0`.
    var version: String
    var status: Int
    var reason: String
    var headers: HTTPHeaders
}
