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

    let store: Store
    private let clock: any Clock
    private let random: any RandomSource
    let hub: EventHub

    public init(store: Store, clock: any Clock, random: any RandomSource, hub: EventHub) {
        self.store = store
        self.clock = clock
        self.random = random
        self.hub = hub
    }

    /// The keys of an account, newest first.
    public func list(accountID: String) throws -> [Key] {
        try store.read { db in try db.rows(SQL.list, [.text(accountID)]) { try Key(row: $0, accountID: accountID) } }
    }

    /// Makes a key with a label checked by `TextRule.keyLabel` and its scopes (not empty:
    /// the route refuses an empty list); the secret exists only in the answer.
    public func create(accountID: String, label: CheckedText, scopes: ScopeSet = .all) throws -> (key: Key, secret: Secret) {
        guard !scopes.isEmpty else { throw Self.noScopeError }
        let label = label.value
        let now = clock.wallMillis
        let secret = Secret.generate(.apiKey, random: random)
        let key = Key(id: Identifier.make("key_", millis: now, random: random), accountID: accountID, label: label,
                      prefix: secret.displayPrefix, last4: secret.last4, createdAt: now, scopes: scopes, counts: Key.Counts())
        try store.write(hub: hub) { db, turn in
            let count = try db.statement(SQL.countLive)
            try count.bind(accountID, at: 1)
            defer { count.reset() }
            guard let row = try count.nextRow() else { throw SQLiteError(code: 20, message: "count gave no row", sql: SQL.countLive) }
            if try row.int("live") >= Self.maxPerAccount {
                throw Self.fullError
            }
            try db.statement(SQL.insert).run(.text(key.id), .text(accountID), .text(label), .blob(secret.hash),
                                             .text(key.prefix), .text(key.last4), .integer(now), .integer(scopes.bits))
            try turn.record(Change(accountID: accountID, event: .keyCreated(key), actor: .account))
        }
        return (key, secret)
    }

    /// Changes the label and the scopes (nil: that one does not change) of a key of the
    /// account, together or not at all. `key.updated` only when something really changed. A
    /// change of scopes holds for the key's next request: its cached principal is forgotten
    /// here, and the calls it has parked end once the change is committed (`Wakeups`).
    public func update(accountID: String, keyID: String, label: CheckedText?, scopes: ScopeSet? = nil) throws -> Key {
        guard scopes?.isEmpty != true else { throw Self.noScopeError }
        let updated = try store.write(hub: hub) { db, turn in
            let before = try Self.fetch(db, accountID: accountID, keyID: keyID)
            if let label, label.value != before.label {
                try db.statement(SQL.updateLabel).run(.text(label.value), .text(keyID), .text(accountID))
            }
            if let scopes, scopes != before.scopes {
                try db.statement(SQL.updateScopes).run(.integer(scopes.bits), .text(keyID), .text(accountID))
            }
            let after = try Self.fetch(db, accountID: accountID, keyID: keyID)
            if after.label != before.label || after.scopes != before.scopes {
                try turn.record(Change(accountID: accountID, event: .keyUpdated(after), actor: .account))
            }
            return (key: after, scopesChanged: after.scopes != before.scopes)
        }
        if updated.scopesChanged { store.credentials.forgetKey(keyID) }
        return updated.key
    }

    public func get(accountID: String, keyID: String) throws -> Key {
        try store.read { db in try Self.fetch(db, accountID: accountID, keyID: keyID) }
    }

    /// Marks the key deleted and removes its OAuth grants: its secret and their tokens stop
    /// working when this returns; `Purger` removes its data afterwards.
    public func delete(accountID: String, keyID: String) throws {
        let now = clock.wallMillis
        try store.write(hub: hub) { db, turn in
            guard try db.statement(SQL.markDeleted).run(.integer(now), .text(keyID), .text(accountID)) == 1 else {
                throw DomainError.notFound("Key not found.")
            }
            // Its connectors' grants go with it, at once (issue 24): their tokens are the key's.
            try OAuthGrants.deleteAll(ofKey: keyID, in: db)
            try turn.record(Change(accountID: accountID, event: .keyDeleted(keyID: keyID), actor: .account))
        }
        store.credentials.forgetKey(keyID)
    }

    /// Notes a request of the key: `last_used_at` when null or a minute old, and the host name
    /// when it changed. Writes nothing in the common case.
    public func recordUse(_ use: KeyUse, host: String?) throws {
        let now = clock.wallMillis
        let stale = use.lastUsedAt.map { now - $0 >= Self.lastUsedResolutionMillis } ?? true
        let newHost = host.flatMap { $0 == use.lastHost ? nil : $0 }
        guard stale || newHost != nil else { return }
        try store.write(hub: hub) { db, turn in
            if stale {
                try db.statement(SQL.touch).run(.integer(now), .text(use.keyID))
            }
            if let newHost {
                try db.statement(SQL.setHost).run(.text(newHost), .text(use.keyID))
                // `events.md`: `key.updated` for a new `last_host`, never for `last_used_at` alone.
                if let key = try? Self.fetch(db, accountID: use.accountID, keyID: use.keyID) {
                    try turn.record(Change(accountID: use.accountID, event: .keyUpdated(key), actor: .key(use.keyID)))
                }
            }
        }
        store.credentials.updateKeyUse(use.keyID, lastUsedAt: stale ? now : use.lastUsedAt, lastHost: newHost ?? use.lastHost)
    }

    static func fetch(_ db: Database, accountID: String, keyID: String) throws -> Key {
        let statement = try db.statement(SQL.get)
        try statement.bind(keyID, at: 1)
        try statement.bind(accountID, at: 2)
        defer { statement.reset() }
        guard let row = try statement.nextRow() else { throw DomainError.notFound("Key not found.") }
        return try Key(row: row, accountID: accountID)
    }

    /// The same through a store session (the services written against one: `ActivityLog`).
    static func fetch(_ db: any StoreSession, accountID: String, keyID: String) async throws -> Key {
        guard let key = try await db.firstRow(SQL.get, [.text(keyID), .text(accountID)], { try Key(row: $0, accountID: accountID) }) else {
            throw DomainError.notFound("Key not found.")
        }
        return key
    }

    enum SQL {
        static let columns = """
            id, label, prefix, last4, created_at, last_used_at, last_host, last_client_name, last_client_version, scopes, \
            todo_count, in_progress_count, done_count, cancelled_count
            """
        static let list = "SELECT \(columns) FROM keys WHERE account_id = ? AND deleted_at IS NULL ORDER BY rowid DESC"
        /// Written for both stores (`$N`): `fetch` reads it through a session too.
        static let get = "SELECT \(columns) FROM keys WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL"
        static let countLive = "SELECT count(*) AS live FROM keys WHERE account_id = ? AND deleted_at IS NULL"
        static let insert = """
            INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        static let updateLabel = "UPDATE keys SET label = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL"
        static let updateScopes = "UPDATE keys SET scopes = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL"
        static let markDeleted = "UPDATE keys SET deleted_at = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL"
        static let touch = "UPDATE keys SET last_used_at = ? WHERE id = ?"
        static let setHost = "UPDATE keys SET last_host = ? WHERE id = ?"
        static let setClient = "UPDATE keys SET last_client_name = ?, last_client_version = ? WHERE id = ?"
        static let client = "SELECT last_client_name, last_client_version FROM keys WHERE id = ?"
    }
}
