import Clock
import SQLite

/// Accounts: create, read, change settings, delete (`rest-api.md#accounts`).
public final class Accounts {
    private let store: Store
    private let clock: any Clock
    private let random: any RandomSource
    private let hub: EventHub

    public init(store: Store, clock: any Clock, random: any RandomSource, hub: EventHub) {
        self.store = store
        self.clock = clock
        self.random = random
        self.hub = hub
    }

    /// Makes an account and its token; the token exists only in the answer. With App Attest,
    /// the account keeps `attestedKey`, and a key that an account (not deleted) has already
    /// is refused with `AttestedKeyInUse` (`app-integrity.md#create-the-account`).
    public func create(attestedKey: AttestedKey? = nil) throws -> (account: Account, token: Secret) {
        let now = clock.wallMillis
        let account = Account(id: Identifier.make("acc_", millis: now, random: random), createdAt: now, liveActivities: true)
        let token = Secret.generate(.accountToken, random: random)
        try store.write { db in
            guard let key = attestedKey else {
                try db.statement(SQL.insert).run(.text(account.id), .blob(token.hash), .integer(now))
                return
            }
            // Checked in the same transaction as the insert; the unique index would refuse a
            // second one anyway, but as a store failure rather than an answer.
            let inUse = try db.statement(SQL.selectAttestedKey)
            try inUse.bind(key.keyID, at: 1)
            defer { inUse.reset() }
            guard try inUse.nextRow() == nil else { throw AttestedKeyInUse() }
            try db.statement(SQL.insertAttested).run(.text(account.id), .blob(token.hash), .integer(now),
                                                     .blob(key.keyID), .blob(key.publicKey), .integer(key.counter))
        }
        return (account, token)
    }

    /// The attested key an account keeps, if it was made with App Attest.
    public func attestedKey(of id: String) throws -> AttestedKey? {
        try store.read { db in
            let statement = try db.statement(SQL.selectKeyOfAccount)
            try statement.bind(id, at: 1)
            defer { statement.reset() }
            guard let row = try statement.nextRow() else { return nil }
            return AttestedKey(keyID: try row.blob("attest_key_id"), publicKey: try row.blob("attest_public_key"),
                               counter: try row.int64("attest_counter"))
        }
    }

    public func get(_ id: String) throws -> Account {
        try store.read { db in try Self.fetch(db, id) }
    }

    /// Applies the settings given (nil: unchanged) and returns the account.
    public func update(_ id: String, liveActivities: Bool?) throws -> Account {
        try store.write { db in
            if let liveActivities {
                try db.statement(SQL.updateLiveActivities).run(.integer(liveActivities ? 1 : 0), .text(id))
            }
            return try Self.fetch(db, id)
        }
    }

    /// Marks the account and its keys deleted: their credentials stop working when this
    /// returns. `Purger` removes the rows afterwards, in small steps.
    public func delete(_ id: String) throws {
        let now = clock.wallMillis
        try store.write(hub: hub) { db, turn in
            guard try db.statement(SQL.markDeleted).run(.integer(now), .text(id)) == 1 else {
                throw DomainError.notFound("Account not found.")
            }
            try db.statement(SQL.markKeysDeleted).run(.integer(now), .text(id))
            // The web console's links, sessions and passkeys go at once: nothing of them is
            // kept for the purge.
            try WebSignIn.deleteAll(of: id, in: db)
            // So do its connectors' grants, codes and tokens.
            try OAuthGrants.deleteAll(ofAccount: id, in: db)
            try turn.record(Change(accountID: id, event: .accountDeleted, actor: .account))
        }
        store.credentials.forgetAccount(id)
    }

    static func fetch(_ db: Database, _ id: String) throws -> Account {
        let statement = try db.statement(SQL.select)
        try statement.bind(id, at: 1)
        defer { statement.reset() }
        guard let row = try statement.nextRow() else { throw DomainError.notFound("Account not found.") }
        return Account(id: try row.text("id"), createdAt: try row.int64("created_at"),
                       liveActivities: try row.bool("live_activities"))
    }

    /// The same through a store session (the services written against one: `WebSignIn`).
    static func fetch(_ db: any StoreSession, _ id: String) async throws -> Account {
        guard let account = try await db.firstRow(SQL.select, [.text(id)], { row in
            Account(id: try row.text("id"), createdAt: try row.int64("created_at"), liveActivities: try row.bool("live_activities"))
        }) else { throw DomainError.notFound("Account not found.") }
        return account
    }

    enum SQL {
        static let insert = "INSERT INTO accounts (id, token_hash, created_at) VALUES (?, ?, ?)"
        static let insertAttested = """
            INSERT INTO accounts (id, token_hash, created_at, attest_key_id, attest_public_key, attest_counter)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        static let selectAttestedKey = "SELECT 1 FROM accounts WHERE attest_key_id = ? AND deleted_at IS NULL"
        static let selectKeyOfAccount = """
            SELECT attest_key_id, attest_public_key, attest_counter FROM accounts
            WHERE id = ? AND deleted_at IS NULL AND attest_key_id IS NOT NULL
            """
        /// Written for both stores (`$N`): `fetch` reads it through a session too.
        static let select = "SELECT id, created_at, live_activities FROM accounts WHERE id = $1 AND deleted_at IS NULL"
        static let updateLiveActivities = "UPDATE accounts SET live_activities = ? WHERE id = ? AND deleted_at IS NULL"
        static let markDeleted = "UPDATE accounts SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL"
        static let markKeysDeleted = "UPDATE keys SET deleted_at = ? WHERE account_id = ? AND deleted_at IS NULL"
    }
}
