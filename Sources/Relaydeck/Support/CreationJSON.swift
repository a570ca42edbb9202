import JSON

/// `{"<object>": ..., "<secret>": "..."}`: how a creation that makes a secret is answered
/// (`POST /v1/accounts`, `POST /v1/keys`, and the operator's `account create` and `key
/// create`). The one place a secret is written out, this one time.
public enum CreationJSON {
    public static func bytes(_ objectKey: StaticString, _ write: (inout JSONWriter) -> Void,
                             secretKey: StaticString, _ secret: Secret) -> [UInt8] {
        var writer = JSONWriter(capacity: 400)
        writer.beginObject()
        writer.key(objectKey)
        write(&writer)
        writer.key(secretKey)
        writer.string(secret.text)
        writer.endObject()
        return writer.bytes
    }
}
