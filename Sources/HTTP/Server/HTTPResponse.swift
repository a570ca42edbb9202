/// A complete response. The connection adds Content-Length, Date and Connection. With a
/// `producer`, the body is made in pieces as the client reads (`HTTPBodyProducer`) and `body`
/// is not sent.
///
/// Sendable by promise rather than by proof: a producer is a class made on the loop thread
/// for one answer and used there only; a response with one never leaves the loop (the
/// shared constant responses have none).
public struct HTTPResponse: @unchecked Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var producer: (any HTTPBodyProducer)?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Shared, so a JSON response allocates no header array.
    public static let jsonHeaders: [(name: String, value: String)] = [("Content-Type", "application/json")]

    /// A response whose body `producer` makes while the client reads.
    public static func produced(_ status: Int, headers: [(name: String, value: String)], _ producer: any HTTPBodyProducer) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers)
        response.producer = producer
        return response
    }

    public static func json(_ status: Int, _ body: [UInt8], headers extra: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: extra.isEmpty ? jsonHeaders : jsonHeaders + extra, body: body)
    }
}
