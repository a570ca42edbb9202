/// One request as the client sends it: the method, the URL, the caller's header fields and
/// an optional body. The client adds the fields that belong to the connection: `Host` first,
/// then the caller's, `Content-Length` when there is a body, and `Connection: close` (one
/// request per connection).
public struct HTTPClientRequest: Sendable, Equatable {
    public var method: String
    public var url: HTTPURL
    public var headers: HTTPHeaders
    public var body: [UInt8]?
    /// Whether the answer's body is read. False for a caller that acts on the status and the
    /// head alone (Web Push): the connection ends once the head is in, and a body of any size
    /// costs nothing.
    public var readsAnswerBody: Bool

    /// Fields the client writes itself; a caller's would contradict them.
    static let connectionFields = ["host", "content-length", "transfer-encoding", "connection", "te", "upgrade"]

    public init(method: String = "GET", url: HTTPURL, headers: HTTPHeaders = [:], body: [UInt8]? = nil,
                readsAnswerBody: Bool = true) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.readsAnswerBody = readsAnswerBody
    }

    /// Whether the answer can have no body whatever its head says (RFC 9112 6.3).
    var isHEAD: Bool { method == "HEAD" }

    /// The request's bytes, head and body; the reason when the method or a field could not be
    /// sent as it is (it would end its line early or contradict the connection's own fields).
    func bytes() -> Result<[UInt8], HTTPClientFailure> {
        guard HTTPHeaders.isToken(method.utf8) else {
            return .failure(.invalidRequest("a method that is not a token: \(String(reflecting: method))"))
        }
        var head = "\(method) \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\n"
        for (name, value) in headers {
            guard HTTPHeaders.isToken(name.utf8), HTTPHeaders.isFieldValue(value.utf8) else {
                return .failure(.invalidRequest("a header field that cannot be sent as it is: \(String(reflecting: name))"))
            }
            guard !Self.connectionFields.contains(where: { HTTPHeaders.same($0, name) }) else {
                return .failure(.invalidRequest("\(name) is the client's to write"))
            }
            head += "\(name): \(value)\r\n"
        }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        return .success(Array(head.utf8) + (body ?? []))
    }
}
