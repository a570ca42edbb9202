import Clock
import Crypto
import SQLite

/// The Web Push subscriptions of an account (issue 21) and the server's VAPID key.
public final class WebPushSubscriptions {
    public static let maxPerAccount = 10
    /// The refusal of the subscription past `maxPerAccount` (`409`).
    public static let fullError = DomainError.conflict("An account can have \(maxPerAccount) Web Push subscriptions.")
    public static let notFound = DomainError.notFound("Web Push subscription not found.")

    private let store: any SessionStore
    private let clock: any Clock
    /// The VAPID key once read (or made).
    private var kept: P256.PrivateKey?

    public init(store: any SessionStore, clock: any Clock) {
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
    public func put(accountID: String, id: String, _ registration: Registration) async throws -> WebPushSubscription {
        let now = clock.wallMillis
        return try await store.writing { db in
            let existing = try await db.firstRow(SQL.get, .text(accountID), .text(id)) { try WebPushSubscription(row: $0) }
            if existing == nil, try await db.count(SQL.count, .text(accountID)) >= Self.maxPerAccount {
                throw Self.fullError
            }
            try await db.run(SQL.releaseEndpoint, .text(registration.endpoint), .text(accountID), .text(id))
            let subscription = WebPushSubscription(
                id: id, accountID: accountID, endpoint: registration.endpoint, p256dh: registration.p256dh,
                auth: registration.auth, label: registration.label, expirationTime: registration.expirationTime,
                createdAt: existing?.createdAt ?? now, updatedAt: now)
            try await db.run(
                SQL.upsert, .text(accountID), .text(id), .text(subscription.endpoint), .blob(subscription.p256dh), .blob(subscription.auth),
                subscription.label.map { .text($0) } ?? .null, subscription.expirationTime.map { .integer($0) } ?? .null,
                .integer(subscription.createdAt), .integer(now))
            return subscription
        }
    }

    /// The account's subscriptions, oldest first.
    public func list(accountID: String) async throws -> [WebPushSubscription] {
        try await store.reading { db in try await db.rows(SQL.list, [.text(accountID)]) { try WebPushSubscription(row: $0) } }
    }

    /// The subscription, or `404`.
    public func get(accountID: String, id: String) async throws -> WebPushSubscription {
        try await store.reading { db in
            guard let found = try await db.firstRow(SQL.get, .text(accountID), .text(id), decode: { try WebPushSubscription(row: $0) }) else {
                throw Self.notFound
            }
            return found
        }
    }

    /// Removes the subscription (`DELETE`), or `404` when the account has none of that ID.
    public func delete(accountID: String, id: String) async throws {
        try await store.writing { db in
            guard try await db.run(SQL.delete, .text(accountID), .text(id)) == 1 else { throw Self.notFound }
            try await db.run(SQL.deleteJobs, .text(accountID), .text(id))
        }
    }

    /// The server's VAPID key: the one in the store, or a new one made and stored at the first
    /// start. It stays for the store's life (a backup carries it): a new key would leave every
    /// subscription unable to receive. Nodes that start together on one new PostgreSQL
    /// database may each make one: the first stored is the key, and each reads it back.
    public func vapidKey() async throws -> P256.PrivateKey {
        if let kept { return kept }
        let now = clock.wallMillis
        let key = try await store.writing { db in
            if let scalar = try await db.firstRow(SQL.vapidKey, decode: { try $0.blob("private_key") }) {
                return try P256.PrivateKey(scalar: scalar)
            }
            let made = try P256.PrivateKey()
            try await db.run(SQL.storeVAPIDKey, .blob(made.scalar), .integer(now))
            guard let stored = try await db.firstRow(SQL.vapidKey, decode: { try $0.blob("private_key") }) else { return made }
            return try P256.PrivateKey(scalar: stored)
        }
        kept = key
        return key
    }

    /// The key as `vapidKey()` last gave it, for a caller that cannot await it: the Web Push
    /// dispatcher signs on the loop's synchronous path (it moves onto a session with the push
    /// planners). Nil until a `vapidKey()` has ended.
    public var keptVAPIDKey: P256.PrivateKey? { kept }

    /// Written for both stores (`$N`, each first in order: `StoreSession`); the Web Push
    /// planner and outbox read `get`, `exists` and `ids` too, on SQLite.
    enum SQL {
        static let columns = "account_id, id, endpoint, p256dh, auth, label, expiration_time, created_at, updated_at"
        static let get = "SELECT \(columns) FROM web_push_subscriptions WHERE account_id = $1 AND id = $2"
        static let list = "SELECT \(columns) FROM web_push_subscriptions WHERE account_id = $1 ORDER BY created_at, rowid"
        static let count = "SELECT count(*) AS n FROM web_push_subscriptions WHERE account_id = $1"
        static let ids = "SELECT id FROM web_push_subscriptions WHERE account_id = $1 ORDER BY created_at, rowid"
        static let exists = "SELECT 1 FROM web_push_subscriptions WHERE account_id = $1 AND id = $2"
        static let releaseEndpoint = """
            DELETE FROM web_push_subscriptions WHERE endpoint = $1 AND NOT (account_id = $2 AND id = $3)
            """
        static let upsert = """
            INSERT INTO web_push_subscriptions (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
            ON CONFLICT (account_id, id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, \
            auth = excluded.auth, label = excluded.label, expiration_time = excluded.expiration_time, \
            updated_at = excluded.updated_at
            """
        static let delete = "DELETE FROM web_push_subscriptions WHERE account_id = $1 AND id = $2"
        /// The messages still waiting for the subscription removed. The outbox has its own
        /// (`WebPushOutbox.SQL`), in SQLite's form until it runs on a session.
        static let deleteJobs = "DELETE FROM web_push_jobs WHERE account_id = $1 AND subscription_id = $2"
        static let vapidKey = "SELECT private_key FROM web_push_vapid WHERE id = 1"
        static let storeVAPIDKey = """
            INSERT INTO web_push_vapid (id, private_key, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING
            """
    }
}
