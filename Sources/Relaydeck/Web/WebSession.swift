import JSON

/// A browser signed in to the web console: a random secret in a cookie, kept here as its
/// SHA-256 only. It ends after 30 days unused or at sign-out.
public struct WebSession: Sendable, Equatable {
    public let id: String
    public let accountID: String
    public let createdAt: Int64
    public let lastUsedAt: Int64
    public let userAgent: String?

    /// `{"id", "created_at", "last_used_at", "user_agent", "current"}`; `current` when this is
    /// the session of the request.
    public func write(to writer: inout JSONWriter, current: Bool) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("last_used_at")
        writer.timestamp(millis: lastUsedAt)
        writer.key("user_agent")
        if let userAgent { writer.string(userAgent) } else { writer.null() }
        writer.key("current")
        writer.bool(current)
        writer.endObject()
    }
}

/// A passkey of an account (WebAuthn credential): its ID, COSE public key and sign counter.
public struct Passkey: Sendable, Equatable {
    public let id: String
    public let accountID: String
    public let credentialID: [UInt8]
    /// The COSE_Key bytes as the authenticator sent them at registration.
    public let publicKey: [UInt8]
    public let signCount: UInt32
    public let name: String
    public let createdAt: Int64
    public let lastUsedAt: Int64?

    /// `{"id", "name", "created_at", "last_used_at"}`
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("name")
        writer.string(name)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("last_used_at")
        writer.timestamp(millis: lastUsedAt)
        writer.endObject()
    }
}
