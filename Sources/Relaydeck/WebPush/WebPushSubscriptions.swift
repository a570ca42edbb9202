import Clock
import Crypto
import SQLite

/// The Web Push subscriptions of an account (issue 21) and the server's VAPID key.
public final class WebPushSubscriptions {
    public static let maxPerAccount = 10
    /// The refusal of the subscription past `maxPerAccount` (`409`).
    public static let fullError = DomainError.conflict("An account can have \(maxPerAccount) Web Push subscriptions.")
    public static let notFound = DomainError.notFound("Web Push subscription not found.")

    private let store: Store
    private let clock: any Clock
    /// The VAPID key once read (or made).
    private var kept: P256.PrivateKey?

    public init(store: Store, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// What a `PUT` stores, checked by the caller.
    public struct Registration: Sendable, Equatable {
        public var endpoint: String
        public var p256dh: [UInt8]
        public var auth: [UInt8]
        public var label: String?
        public var expirationTime: Int64?

        public init(endpoint: String, p256dh: [UInt8], auth: [UInt8], label: String?, expirationTime: Int64?) {
            self.endpoint = endpoint
            self.p256dh = p256dh
            self.auth = auth
            self.label = label
            self.expirationTime = expirationTime
        }
    }

    /// Makes or replaces the subscription (`PUT /v1/web-push/subscriptions/{id}`); a new one
    /// past the 10th is a conflict, replacing one is not and keeps its `created_at`. One
    /// endpoint belongs to one subscription, as one APNs token belongs to one device: the
    /// browser that subscribed again (under a new ID, or for another account) leaves the older
    /// subscriptions of that endpoint, which are removed in the same transaction.
    public func put(accountID: String, id: String, _ registration: Registration) throws -> WebPushSubscription {
        let now = clock.wallMillis
        return try store.write { db in
            let existing = try db.firstRow(SQL.get, [.text(accountID), .text(id)]) { try WebPushSubscription(row: $0) }
            if existing == nil, try db.count(SQL.count, .text(accountID)) >= Self.maxPerAccount {
                throw Self.fullError
            }
            try db.statement(SQL.releaseEndpoint).run(.text(registration.endpoint), .text(accountID), .text(id))
            let subscription = WebPushSubscription(
                id: id, accountID: accountID, endpoint: registration.endpoint, p256dh: registration.p256dh,
                auth: registration.auth, label: registration.label, expirationTime: registration.expirationTime,
                createdAt: existing?.createdAt ?? now, updatedAt: now)
            try db.statement(SQL.upsert).run(
                .text(accountID), .text(id), .text(subscription.endpoint), .blob(subscription.p256dh), .blob(subscription.auth),
                subscription.label.map { .text($0) } ?? .null, subscription.expirationTime.map { .integer($0) } ?? .null,
                .integer(subscription.createdAt), .integer(now))
            return subscription
        }
    }

    /// The account's subscriptions, oldest first.
    public func list(accountID: String) throws -> [WebPushSubscription] {
        try store.read { db in try db.rows(SQL.list, [.text(accountID)]) { try WebPushSubscription(row: $0) } }
    }

    /// The subscription, or `404`.
    public func get(accountID: String, id: String) throws -> WebPushSubscription {
        try store.read { db in
            guard let found = try db.firstRow(SQL.get, [.text(accountID), .text(id)], { try WebPushSubscription(row: $0) }) else {
                throw Self.notFound
            }
            return found
        }
    }

    /// Removes the subscription (`DELETE`), or `404` when the account has none of that ID.
    public func delete(accountID: String, id: String) throws {
        try store.write { db in
            guard try db.statement(SQL.delete).run(.text(accountID), .text(id)) == 1 else { throw Self.notFound }
            try db.statement(WebPushOutbox.SQL.deleteJobsOfSubscription).run(.text(accountID), .text(id))
        }
    }

    /// The server's VAPID key: the one in the store, or a new one made and stored at the first
    /// start. It stays for the store's life (a backup carries it): a new key would leave every
    /// subscription unable to receive.
    public func vapidKey() throws -> P256.PrivateKey {
        if let kept { return kept }
        let key = try store.write { db in
            if let scalar = try db.firstRow(SQL.vapidKey, [], { try $0.blob("private_key") }) {
                return try P256.PrivateKey(scalar: scalar)
            }
            let made = try P256.PrivateKey()
            try db.statement(SQL.storeVAPIDKey).run(.blob(made.scalar), .integer(clock.wallMillis))
            return made
        }
        kept = key
        return key
    }

    enum SQL {
        static let columns = "account_id, id, endpoint, p256dh, auth, label, expiration_time, created_at, updated_at"
        static let get = "SELECT \(columns) FROM web_push_subscriptions WHERE account_id = ? AND id = ?"
        static let list = "SELECT \(columns) FROM web_push_subscriptions WHERE account_id = ? ORDER BY created_at, rowid"
        static let count = "SELECT count(*) AS n FROM web_push_subscriptions WHERE account_id = ?"
        static let ids = "SELECT id FROM web_push_subscriptions WHERE account_id = ? ORDER BY created_at, rowid"
        static let exists = "SELECT 1 FROM web_push_subscriptions WHERE account_id = ? AND id = ?"
        static let releaseEndpoint = """
            DELETE FROM web_push_subscriptions WHERE endpoint = ? AND NOT (account_id = ? AND id = ?)
            """
        static let upsert = """
            INSERT INTO web_push_subscriptions (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
            ON CONFLICT (account_id, id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, \
            auth = excluded.auth, label = excluded.label, expiration_time = excluded.expiration_time, \
            updated_at = excluded.updated_at
            """
        static let delete = "DELETE FROM web_push_subscriptions WHERE account_id = ? AND id = ?"
        static let vapidKey = "SELECT private_key FROM web_push_vapid WHERE id = 1"
        static let storeVAPIDKey = "INSERT INTO web_push_vapid (id, private_key, created_at) VALUES (1, ?, ?)"
    }
}
