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

    /// Makes an account and its token; the token exists only in the answer.
    public func create() throws -> (account: Account, token: Secret) {
        let now = clock.wallMillis
        let account = Account(id: Identifier.make("acc_", millis: now, random: random), createdAt: now, liveActivities: true)
        let token = Secret.generate(.accountToken, random: random)
        try store.write { db in
            try db.statement(SQL.insert).run(.text(account.id), .blob(token.hash), .integer(now))
        }
        return (account, token)
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
        try store.write { db in
            guard try db.statement(SQL.markDeleted).run(.integer(now), .text(id)) == 1 else {
                throw DomainError.notFound("Account not found.")
            }
            try db.statement(SQL.markKeysDeleted).run(.integer(now), .text(id))
        }
        store.credentials.forgetAccount(id)
        hub.publish(Change(accountID: id, event: .accountDeleted, actor: .account))
    }

    static func fetch(_ db: Database, _ id: String) throws -> Account {
        let statement = try db.statement(SQL.select)
        try statement.bind(id, at: 1)
        defer { statement.reset() }
        guard let row = try statement.nextRow() else { throw DomainError.notFound("Account not found.") }
        return Account(id: try row.text("id"), createdAt: try row.int64("created_at"),
                       liveActivities: try row.bool("live_activities"))
    }

    enum SQL {
        static let insert = "INSERT INTO accounts (id, token_hash, created_at) VALUES (?, ?, ?)"
        static let select = "SELECT id, created_at, live_activities FROM accounts WHERE id = ? AND deleted_at IS NULL"
        static let updateLiveActivities = "UPDATE accounts SET live_activities = ? WHERE id = ? AND deleted_at IS NULL"
        static let markDeleted = "UPDATE accounts SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL"
        static let markKeysDeleted = "UPDATE keys SET deleted_at = ? WHERE account_id = ? AND deleted_at IS NULL"
    }
}
