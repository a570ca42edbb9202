import HTTP
import JSON

/// One request on its way through an endpoint: what matched, its body, its query.
struct Call {
    let request: HTTPRequest
    /// The route's named parameters: `try call.path("key_id")`.
    let path: PathParameters
    /// The parsed body; nil when the endpoint takes none or none was sent.
    let body: JSON?
    /// What the endpoint tells the request's record beyond its status (an MCP method's
    /// action and client); `APIHandler.execute` copies it over.
    var note = RecordNote()

    /// The fields of the body, read and checked (an absent body reads as `{}`).
    func bodyReader() -> FieldReader {
        FieldReader(body: body)
    }

    /// The parameters of the query string, read and checked.
    func queryReader() -> FieldReader {
        FieldReader(query: request.head.query)
    }
}
