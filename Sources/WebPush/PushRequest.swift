import Crypto

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

    /// The request's bytes, head and body, with `authorization` (the VAPID header).
    public func bytes(authorization: String) -> [UInt8] {
        var head = "POST \(endpoint.target) HTTP/1.1\r\n"
        head += "Host: \(endpoint.authority)\r\n"
        head += "TTL: \(max(ttl, 0))\r\n"
        head += "Urgency: \(urgency.rawValue)\r\n"
        if let topic { head += "Topic: \(topic)\r\n" }
        head += "Content-Type: application/octet-stream\r\n"
        head += "Content-Encoding: aes128gcm\r\n"
        head += "Content-Length: \(body.count)\r\n"
        head += "Authorization: \(authorization)\r\n"
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
