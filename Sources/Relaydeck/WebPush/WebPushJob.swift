import SQLite

/// One push in the Web Push outbox (issue 21): the message in clear for one subscription, and
/// how it goes (RFC 8030's `Urgency` and `Topic`; `TTL` is what is left until `expiresAt`).
/// The payload names tasks and questions: never logged.
public struct WebPushJob: Sendable, Equatable {
    /// What the push is about, for `/metrics` (`relaydeck_pushes_total{service="webpush",kind}`).
    public enum Kind: String, Sendable, CaseIterable {
        case task, message, question, test
    }

    /// RFC 8030 section 5.3 (this server sends three of its four).
    public enum Urgency: String, Sendable, CaseIterable {
        case low, normal, high
    }

    public var id: Int64
    public var accountID: String
    public var subscriptionID: String
    public var kind: Kind
    public var urgency: Urgency
    /// A newer message of the same topic replaces an older one the push service still holds
    /// (the task or question ID); nil for none.
    public var topic: String?
    /// `WebPushPayload`'s JSON, before encryption.
    public var payload: [UInt8]
    /// Wall milliseconds after which the message is of no use: not sent, not tried again.
    public var expiresAt: Int64
    /// Sends tried so far that ended in a failure worth trying again.
    public var attempts: Int
    public var createdAt: Int64

    public init(id: Int64 = 0, accountID: String, subscriptionID: String, kind: Kind, urgency: Urgency, topic: String?,
                payload: [UInt8], expiresAt: Int64, attempts: Int = 0, createdAt: Int64) {
        self.id = id
        self.accountID = accountID
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.urgency = urgency
        self.topic = topic
        self.payload = payload
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.createdAt = createdAt
    }

    init(row: any StoreRow) throws {
        guard let kind = Kind(rawValue: try row.text("kind")), let urgency = Urgency(rawValue: try row.text("urgency")) else {
            throw StoreError.failure("a Web Push job has an unknown kind or urgency")
        }
        self.init(id: try row.int64("id"), accountID: try row.text("account_id"),
                  subscriptionID: try row.text("subscription_id"), kind: kind, urgency: urgency,
                  topic: try row.optionalText("topic"), payload: try row.blob("payload"),
                  expiresAt: try row.int64("expires_at"), attempts: Int(try row.int64("attempts")),
                  createdAt: try row.int64("created_at"))
    }

    /// Writes the job, due now.
    func insert(_ db: any StoreSession) async throws {
        try await db.run(WebPushOutbox.SQL.insertJob,
            .text(accountID), .text(subscriptionID), .text(kind.rawValue), .text(urgency.rawValue),
            topic.map { .text($0) } ?? .null, .blob(payload), .integer(expiresAt), .integer(createdAt), .integer(createdAt))
    }
}
