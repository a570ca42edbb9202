import Crypto
import HTTPClient

/// One push message as it goes to a push service (RFC 8030 section 5): an HTTP/1.1 `POST` of
/// the encrypted body to the subscription's endpoint, with its lifetime, urgency and topic, and
/// the VAPID `Authorization`. One request per connection (`Connection: close`): pushes are few
/// and far apart on a server for one person.
public struct PushRequest: Sendable, Equatable {
    /// RFC 8030 section 5.3.
    public enum Urgency: String, Sendable, CaseIterable {
        case veryLow = "very-low", low, normal, high
    }

    public var endpoint: PushEndpoint
    /// Seconds the push service keeps the message for an offline browser (`TTL`).
    public var ttl: Int
    public var urgency: Urgency
    /// A name under which a newer message replaces an older one not yet delivered (`Topic`);
    /// nil for none.
    public var topic: String?
    /// The encrypted body (`WebPushMessage.encrypt`).
    public var body: [UInt8]

    public init(endpoint: PushEndpoint, ttl: Int, urgency: Urgency, topic: String?, body: [UInt8]) {
        self.endpoint = endpoint
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
        self.body = body
    }

    /// A `Topic` of RFC 8030 section 5.4 for `name` (a question or task ID): at most 32
    /// characters of the base64url alphabet. A name that already is one stays as it is;
    /// another is the first 32 characters of its SHA-256 in base64url.
    public static func topic(for name: String) -> String {
        let alphabet = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D
        }
        if alphabet && !name.isEmpty && name.utf8.count <= 32 { return name }
        return String(Base64.encode(SHA256.hash(Array(name.utf8)), urlSafe: true, padded: false).prefix(32))
    }

    /// The request as the HTTP client sends it, with `authorization` (the VAPID header). The
    /// answer's head is all a push needs (`PushAnswer`): its body is never read.
    public func clientRequest(authorization: String) -> HTTPClientRequest {
        var headers: HTTPHeaders = [:]
        headers.add("TTL", String(max(ttl, 0)))
        headers.add("Urgency", urgency.rawValue)
        if let topic { headers.add("Topic", topic) }
        headers.add("Content-Type", "application/octet-stream")
        headers.add("Content-Encoding", "aes128gcm")
        headers.add("Authorization", authorization)
        return HTTPClientRequest(method: "POST", url: endpoint.requestURL, headers: headers, body: body, readsAnswerBody: false)
    }
}
