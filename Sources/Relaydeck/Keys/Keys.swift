import Clock
import SQLite

/// API keys of an account (`rest-api.md#keys`).
public final class Keys {
    /// `overview.md#limits`
    public static let maxPerAccount = 20
    /// The refusal of the key past `maxPerAccount` (`409`), written from it.
    public static let fullError = DomainError.conflict("An account can have \(maxPerAccount) keys.")
    /// A key holds at least one scope (a key that may do nothing is a deleted key that still
    /// counts toward `maxPerAccount`); the routes refuse an empty list before this does.
    public static let noScopeError = DomainError.validation([FieldProblem("scopes", "Must name at least one scope.")])
    /// `last_used_at` changes one time in one minute at most (`rest-api.md#key`).
    public static let lastUsedResolutionMillis: Int64 = 60_000

    let store: any SessionStore
    private let clock: any Clock
    private let random: any RandomSource
    let hub: EventHub

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource, hub: EventHub) {
        self.store = store
        self.clock = clock
        self.random = random
        self.hub = hub
    }

    /// The keys of an account, newest first.
    public func list(accountID: String) async throws -> [Key] {
        try await store.reading { db in try await db.rows(SQL.list, [.text(accountID)]) { try Key(row: $0, accountID: accountID) } }
    }

    /// Makes a key with a label checked by `TextRule.keyLabel` and its scopes (not empty:
    /// the route refuses an empty list); the secret exists only in the answer.
    public func create(accountID: String, label: CheckedText, scopes: ScopeSet = .all) async throws -> (key: Key, secret: Secret) {
        guard !scopes.isEmpty else { throw Self.noScopeError }
        let label = label.value
        let now = clock.wallMillis
        let secret = Secret.generate(.apiKey, random: random)
        let key = Key(id: Identifier.make("key_", millis: now, random: random), accountID: accountID, label: label,
                      prefix: secret.displayPrefix, last4: secret.last4, createdAt: now, scopes: scopes, counts: Key.Counts())
        try await store.writing(hub: hub, account: accountID) { db, turn in
            // One writer of the account's keys at a time, so the cap holds on PostgreSQL too.
            try await db.lockAccount(accountID)
            if try await db.count(SQL.countLive, .text(accountID)) >= Self.maxPerAccount {
                throw Self.fullError
            }
            try await db.run(SQL.insert, .text(key.id), .text(accountID), .text(label), .blob(secret.hash),
                             .text(key.prefix), .text(key.last4), .integer(now), .integer(scopes.bits))
            try await turn.record(Change(accountID: accountID, event: .keyCreated(key), actor: .account))
        }
        return (key, secret)
    }

    /// Changes the label and the scopes (nil: that one does not change) of a key of the
    /// account, together or not at all. `key.updated` only when something really changed. A
    /// change of scopes holds for the key's next request: its cached principal is forgotten
    /// here, and the calls it has parked end once the change is committed (`Wakeups`).
    public func update(accountID: String, keyID: String, label: CheckedText?, scopes: ScopeSet? = nil) async throws -> Key {
        guard scopes?.isEmpty != true else { throw Self.noScopeError }
        let updated = try await store.writing(hub: hub, account: accountID) { db, turn in
            let before = try await Self.fetch(db, accountID: accountID, keyID: keyID)
            if let label, label.value != before.label {
                try await db.run(SQL.updateLabel, .text(label.value), .text(keyID), .text(accountID))
            }
            if let scopes, scopes != before.scopes {
                try await db.run(SQL.updateScopes, .integer(scopes.bits), .text(keyID), .text(accountID))
            }
            let after = try await Self.fetch(db, accountID: accountID, keyID: keyID)
            if after.label != before.label || after.scopes != before.scopes {
                try await turn.record(Change(accountID: accountID, event: .keyUpdated(after), actor: .account))
            }
            return (key: after, scopesChanged: after.scopes != before.scopes)
        }
        if updated.scopesChanged { store.credentials.forgetKey(keyID) }
        return updated.key
    }

    public func get(accountID: String, keyID: String) async throws -> Key {
        try await store.reading { db in try await Self.fetch(db, accountID: accountID, keyID: keyID) }
    }

    /// Marks the key deleted and removes its OAuth grants: its secret and their tokens stop
    /// working when this returns; `Purger` removes its data afterwards.
    public func delete(accountID: String, keyID: String) async throws {
        let now = clock.wallMillis
        try await store.writing(hub: hub, account: accountID) { db, turn in
            guard try await db.run(SQL.markDeleted, .integer(now), .text(keyID), .text(accountID)) == 1 else {
                throw DomainError.notFound("Key not found.")
            }
            // Its connectors' grants go with it, at once (issue 24): their tokens are the key's.
            try await OAuthGrants.deleteAll(ofKey: keyID, in: db)
            try await turn.record(Change(accountID: accountID, event: .keyDeleted(keyID: keyID), actor: .account))
        }
        store.credentials.forgetKey(keyID)
    }

    /// Notes a request of the key: `last_used_at` when null or a minute old, and the host name
    /// when it changed. Writes nothing in the common case.
    public func recordUse(_ use: KeyUse, host: String?) async throws {
        let now = clock.wallMillis
        let stale = use.lastUsedAt.map { now - $0 >= Self.lastUsedResolutionMillis } ?? true
        let newHost = host.flatMap { $0 == use.lastHost ? nil : $0 }
        guard stale || newHost != nil else { return }
        try await store.writing(hub: hub, account: use.accountID) { db, turn in
            if stale {
                try await db.run(SQL.touch, .integer(now), .text(use.keyID))
            }
            if let newHost {
                try await db.run(SQL.setHost, .text(newHost), .text(use.keyID))
                // `events.md`: `key.updated` for a new `last_host`, never for `last_used_at` alone.
                if let key = try? await Self.fetch(db, accountID: use.accountID, keyID: use.keyID) {
                    try await turn.record(Change(accountID: use.accountID, event: .keyUpdated(key), actor: .key(use.keyID)))
                }
            }
        }
        store.credentials.updateKeyUse(use.keyID, lastUsedAt: stale ? now : use.lastUsedAt, lastHost: newHost ?? use.lastHost)
    }

    static func fetch(_ db: any StoreSession, accountID: String, keyID: String) async throws -> Key {
        guard let key = try await db.firstRow(SQL.get, [.text(keyID), .text(accountID)], { try Key(row: $0, accountID: accountID) }) else {
            throw DomainError.notFound("Key not found.")
        }
        return key
    }

    /// Written for both stores (`$N`, each first in order).
    enum SQL {
        static let columns = """
            id, label, prefix, last4, created_at, last_used_at, last_host, last_client_name, last_client_version, scopes, \
            todo_count, in_progress_count, done_count, cancelled_count
            """
        static let list = "SELECT \(columns) FROM keys WHERE account_id = $1 AND deleted_at IS NULL ORDER BY rowid DESC"
        static let get = "SELECT \(columns) FROM keys WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL"
        static let countLive = "SELECT count(*) AS n FROM keys WHERE account_id = $1 AND deleted_at IS NULL"
        static let insert = """
            INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at, scopes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """
        static let updateLabel = "UPDATE keys SET label = $1 WHERE id = $2 AND account_id = $3 AND deleted_at IS NULL"
        static let updateScopes = "UPDATE keys SET scopes = $1 WHERE id = $2 AND account_id = $3 AND deleted_at IS NULL"
        static let markDeleted = "UPDATE keys SET deleted_at = $1 WHERE id = $2 AND account_id = $3 AND deleted_at IS NULL"
        static let touch = "UPDATE keys SET last_used_at = $1 WHERE id = $2"
        static let setHost = "UPDATE keys SET last_host = $1 WHERE id = $2"
        static let setClient = "UPDATE keys SET last_client_name = $1, last_client_version = $2 WHERE id = $3"
        static let client = "SELECT last_client_name, last_client_version FROM keys WHERE id = $1"
    }
}
