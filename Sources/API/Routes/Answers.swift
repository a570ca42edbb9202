import HTTP
import JSON
import Relaydeck

/// The JSON answers of the routes. Everything under `/v1` that carries account data or a
/// secret says `Cache-Control: no-store`: no cache between the app and the server (a proxy,
/// a CDN in front of a home server) may keep a key list or a token.
enum Answers {
    static let privateHeaders: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]

    /// `status` with the object `write` writes.
    static func object(_ status: Int = 200, capacity: Int = 256, _ write: (inout JSONWriter) -> Void) -> Outcome {
        .respond(response(status, capacity: capacity, write))
    }

    /// The same as a response, for a waiting call's `poll` and `expire`.
    static func response(_ status: Int = 200, capacity: Int = 256, _ write: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter(capacity: capacity)
        write(&writer)
        return HTTPResponse(status: status, headers: privateHeaders, body: writer.bytes)
    }

    /// `200 {"<name>": [<item>, ...]}`.
    static func list<Item>(_ name: StaticString, _ items: [Item], bytesEach: Int = 300,
                           _ write: (Item, inout JSONWriter) -> Void) -> Outcome {
        object(capacity: 64 + items.count * bytesEach) { writer in
            writer.beginObject()
            writer.key(name)
            writer.beginArray()
            for item in items { write(item, &writer) }
            writer.endArray()
            writer.endObject()
        }
    }

    /// `201 {"<objectKey>": <object>, "<secretKey>": "<secret>"}`: the one answer that carries
    /// a secret, which the client sees this one time.
    static func created(_ objectKey: StaticString, _ write: (inout JSONWriter) -> Void,
                        secretKey: StaticString, _ secret: Secret) -> Outcome {
        .respond(HTTPResponse(status: 201, headers: privateHeaders,
                              body: CreationJSON.bytes(objectKey, write, secretKey: secretKey, secret)))
    }

    static var noContent: Outcome { .respond(HTTPResponse(status: 204)) }
}
