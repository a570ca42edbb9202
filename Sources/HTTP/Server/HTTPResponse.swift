/// A complete response. The connection adds Content-Length, Date and Connection.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Shared, so a JSON response allocates no header array.
    public static let jsonHeaders: [(name: String, value: String)] = [("Content-Type", "application/json")]

    public static func json(_ status: Int, _ body: [UInt8], headers extra: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: extra.isEmpty ? jsonHeaders : jsonHeaders + extra, body: body)
    }
}
