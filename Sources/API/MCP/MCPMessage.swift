import JSON

/// One JSON-RPC 2.0 message of a `POST /mcp` body (`2026-07-28/basic/index#messages`): a
/// request (with an `id`), a notification (without), or a response the client sent.
struct MCPMessage {
    enum Kind {
        case request(id: JSON)
        case notification
        case response
    }

    let kind: Kind
    /// Empty for a response.
    let method: String
    /// `params`, an object; `{}` when none was sent.
    let params: JSONObject
    /// False when `params` was sent but is not an object: the request is answered `-32602`
    /// (MCP's params are always objects).
    var paramsAreObject = true

    /// The `id` to answer with (`null` when it could not be read).
    var id: JSON {
        if case .request(let id) = kind { return id }
        return .null
    }

    /// `streamable-http.mdx#sending-messages`: the body is one request or notification. A
    /// batch (an array) is refused: `2025-06-18` removed batching, and a stateless server
    /// answers one message per POST.
    static func parse(_ body: [UInt8]) throws(MCPError) -> MCPMessage {
        let json: JSON
        do {
            json = try JSONParser.parse(body)
        } catch {
            throw .parseError
        }
        if case .array = json { throw .invalidRequest("batches are not supported; send one message per POST.") }
        guard case .object(let object) = json else { throw .invalidRequest("the body must be a JSON-RPC object.") }
        try refuseDuplicateKeys(object)
        guard object["jsonrpc"] == .string("2.0") else { throw .invalidRequest("\"jsonrpc\" must be \"2.0\".") }
        let id = object["id"]
        if let id {
            // `basic/index#requests`: the ID is a string or an integer, never null.
            switch id {
            case .string: break
            case .number(let number) where number.isInteger: break
            default: throw .invalidRequest("\"id\" must be a string or an integer.")
            }
        }
        guard let methodValue = object["method"] else {
            guard id != nil, object["result"] != nil || object["error"] != nil else {
                throw .invalidRequest("a message needs a \"method\".")
            }
            return MCPMessage(kind: .response, method: "", params: JSONObject())
        }
        guard case .string(let method) = methodValue else { throw .invalidRequest("\"method\" must be a string.") }
        var params = JSONObject()
        var paramsAreObject = true
        switch object["params"] {
        case nil: break
        case .object(let given)?: params = given
        default: paramsAreObject = false
        }
        return MCPMessage(kind: id.map { .request(id: $0) } ?? .notification, method: method, params: params,
                          paramsAreObject: paramsAreObject)
    }

    /// A key twice in one object, anywhere in the message, makes it no valid request: JSON
    /// allows it (RFC 8259 only says names SHOULD be unique), but which value counts is up to
    /// each reader, and `{"method":"tools/list","method":"tools/call",...}` must not be read as
    /// one call by a proxy and another here. So it is `-32600` Invalid Request (the text is
    /// JSON, so not `-32700`), with a `null` id, before anything of it is read. REST refuses
    /// the same bodies with a `422` (`FieldReader`, `Appears more than once.`).
    private static func refuseDuplicateKeys(_ envelope: JSONObject) throws(MCPError) {
        let place: String
        let key: String
        if let found = envelope.firstDuplicateKey {
            (place, key) = ("the message", found)
        } else if case .object(let params)? = envelope["params"], let found = params.firstDuplicateKey {
            (place, key) = ("params", found)
        } else if case .object(let arguments)? = envelope["params"]?["arguments"], let found = arguments.firstDuplicateKey {
            (place, key) = ("params.arguments", found)
        } else if let found = JSON.object(envelope).firstDuplicateKey {
            (place, key) = ("a value of the message", found)
        } else {
            return
        }
        throw .invalidRequest("the key \(quoted(key)) appears more than once in \(place).")
    }

    /// The key as JSON text, cut after 40 code points: the answer must not echo a long name
    /// (and cutting never counts the whole of one).
    private static func quoted(_ key: String) -> String {
        let head = String(String.UnicodeScalarView(key.unicodeScalars.prefix(40)))
        return JSON.string(head.utf8.count < key.utf8.count ? head + "…" : key).description
    }
}
