import Clock
import SQLite

/// Accounts: create, read, change settings, delete (`rest-api.md#accounts`).
public final class Accounts {
    private let store: any SessionStore
    private let clock: any Clock
    private let random: any RandomSource
    private let hub: EventHub

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource, hub: EventHub) {
        self.store = store
        self.clock = clock
        self.random = random
        self.hub = hub
    }

    /// Makes an account and its token; the token exists only in the answer. With App Attest,
    /// the account keeps `attestedKey`, and a key that an account (not deleted) has already
    /// is refused with `AttestedKeyInUse` (`app-integrity.md#create-the-account`).
    public func create(attestedKey: AttestedKey? = nil) async throws -> (account: Account, token: Secret) {
        let now = clock.wallMillis
        let account = Account(id: Identifier.make("acc_", millis: now, random: random), createdAt: now, liveActivities: true)
        let token = Secret.generate(.accountToken, random: random)
        try await store.writing { db in
            guard let key = attestedKey else {
                try await db.run(SQL.insert, .text(account.id), .blob(token.hash), .integer(now))
                return
            }
            // Checked in the same transaction as the insert; the unique index would refuse a
            // second one anyway, but as a store failure rather than an answer.
            guard try await !db.exists(SQL.selectAttestedKey, .blob(key.keyID)) else { throw AttestedKeyInUse() }
            try await db.run(SQL.insertAttested, .text(account.id), .blob(token.hash), .integer(now),
                             .blob(key.keyID), .blob(key.publicKey), .integer(key.counter))
        }
        return (account, token)
    }

    /// The attested key an account keeps, if it was made with App Attest.
    public func attestedKey(of id: String) async throws -> AttestedKey? {
        try await store.reading { db in
            try await db.firstRow(SQL.selectKeyOfAccount, .text(id)) { row in
                AttestedKey(keyID: try row.blob("attest_key_id"), publicKey: try row.blob("attest_public_key"),
                            counter: try row.int64("attest_counter"))
            }
        }
    }

    public func get(_ id: String) async throws -> Account {
        try await store.reading { db in try await Self.fetch(db, id) }
    }

    /// Applies the settings given (nil: unchanged) and returns the account.
    public func update(_ id: String, liveActivities: Bool?) async throws -> Account {
        try await store.writing { db in
            if let liveActivities {
                try await db.run(SQL.updateLiveActivities, .integer(liveActivities ? 1 : 0), .text(id))
            }
            return try await Self.fetch(db, id)
        }
    }

    /// Marks the account and its keys deleted: their credentials stop working when this
    /// returns. `Purger` removes the rows afterwards, in small steps.
    public func delete(_ id: String) async throws {
        let now = clock.wallMillis
        try await store.writing(hub: hub, account: id) { db, turn in
            // It marks the account and its keys: their rows in the order every other writer
            // takes them (PostgreSQL).
            try await db.lockAccountWithKeys(id)
            guard try await db.run(SQL.markDeleted, .integer(now), .text(id)) == 1 else {
                throw DomainError.notFound("Account not found.")
            }
            try await db.run(SQL.markKeysDeleted, .integer(now), .text(id))
            // The web console's links, sessions and passkeys go at once: nothing of them is
            // kept for the purge.
            try await WebSignIn.deleteAll(of: id, in: db)
            // So do its connectors' grants, codes and tokens.
            try await OAuthGrants.deleteAll(ofAccount: id, in: db)
            try await turn.record(Change(accountID: id, event: .accountDeleted, actor: .account))
        }
        store.credentials.forgetAccount(id)
    }

    static func fetch(_ db: any StoreSession, _ id: String) async throws -> Account {
        guard let account = try await db.firstRow(SQL.select, [.text(id)], { row in
            Account(id: try row.text("id"), createdAt: try row.int64("created_at"), liveActivities: try row.bool("live_activities"))
        }) else { throw DomainError.notFound("Account not found.") }
        return account
    }

    /// Written for both stores (`$N`, each first in order).
    enum SQL {
        static let insert = "INSERT INTO accounts (id, token_hash, created_at) VALUES ($1, $2, $3)"
        static let insertAttested = """
            INSERT INTO accounts (id, token_hash, created_at, attest_key_id, attest_public_key, attest_counter)
            VALUES ($1, $2, $3, $4, $5, $6)
            """
        static let selectAttestedKey = "SELECT 1 FROM accounts WHERE attest_key_id = $1 AND deleted_at IS NULL"
        static let selectKeyOfAccount = """
            SELECT attest_key_id, attest_public_key, attest_counter FROM accounts
            WHERE id = $1 AND deleted_at IS NULL AND attest_key_id IS NOT NULL
            """
        static let select = "SELECT id, created_at, live_activities FROM accounts WHERE id = $1 AND deleted_at IS NULL"
        static let updateLiveActivities = "UPDATE accounts SET live_activities = $1 WHERE id = $2 AND deleted_at IS NULL"
        static let markDeleted = "UPDATE accounts SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL"
        static let markKeysDeleted = "UPDATE keys SET deleted_at = $1 WHERE account_id = $2 AND deleted_at IS NULL"
    }
}
