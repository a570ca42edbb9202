import SQLite

/// API keys of an account (`rest-api.md#keys`).
public final class Keys {
    /// `overview.md#limits`
    public static let maxPerAccount = 20
    public static let labelLength = 1...40
    /// `last_used_at` changes one time in one minute at most (`rest-api.md#key`).
    public static let lastUsedResolutionMillis: Int64 = 60_000

    private let store: Store
    private let clock: any WallClock
    private let random: any RandomSource

    public init(store: Store, clock: any WallClock, random: any RandomSource) {
        self.store = store
        self.clock = clock
        self.random = random
    }

    /// The label rules: one line, 1 to 40 characters, no control characters. Returns the
    /// normalized label, or what is wrong with it.
    public static func normalizeLabel(_ raw: String) -> Result<String, FieldProblem> {
        if TextRules.hasControlCharacters(raw) {
            return .failure(FieldProblem("label", "Must not contain control characters."))
        }
        let label = TextRules.oneLine(raw)
        guard labelLength.contains(TextRules.length(label)) else {
            return .failure(FieldProblem("label", "Must be 1 to 40 characters."))
        }
        return .success(label)
    }

    private static func validLabel(_ raw: String) throws(DomainError) -> String {
        switch normalizeLabel(raw) {
        case .success(let label): return label
        case .failure(let problem): throw .validation([problem])
        }
    }

    /// The keys of an account, newest first.
    public func list(accountID: String) throws -> [Key] {
        try store.read { db in
            let statement = try db.statement(SQL.list)
            try statement.bind(accountID, at: 1)
            var keys: [Key] = []
            while try statement.step() {
                keys.append(Self.key(from: statement, accountID: accountID))
            }
            return keys
        }
    }

    /// Makes a key with a normalized label; the secret exists only in the answer.
    public func create(accountID: String, label: String) throws -> (key: Key, secret: Secret) {
        let label = try Self.validLabel(label)
        let now = clock.nowMillis
        let secret = Secret.generate(.apiKey, random: random)
        let key = Key(id: Identifier.make("key_", millis: now, random: random), accountID: accountID, label: label,
                      prefix: secret.displayPrefix, last4: secret.last4, createdAt: now, counts: Key.Counts())
        try store.write { db in
            let count = try db.statement(SQL.countLive)
            try count.bind(accountID, at: 1)
            defer { count.reset() }
            _ = try count.step()
            if count.int(0) >= Self.maxPerAccount {
                throw DomainError.conflict("An account can have \(Self.maxPerAccount) keys.")
            }
            try db.statement(SQL.insert).run(.text(key.id), .text(accountID), .text(label), .blob(secret.hash),
                                             .text(key.prefix), .text(key.last4), .integer(now))
        }
        return (key, secret)
    }

    /// Changes the label (nil: nothing changes) of a key of the account.
    public func update(accountID: String, keyID: String, label: String?) throws -> Key {
        let label = try label.map(Self.validLabel)
        return try store.write { db in
            if let label {
                try db.statement(SQL.updateLabel).run(.text(label), .text(keyID), .text(accountID))
            }
            return try Self.fetch(db, accountID: accountID, keyID: keyID)
        }
    }

    public func get(accountID: String, keyID: String) throws -> Key {
        try store.read { db in try Self.fetch(db, accountID: accountID, keyID: keyID) }
    }

    /// Marks the key deleted: its secret stops working when this returns; `Purger` removes
    /// its data afterwards.
    public func delete(accountID: String, keyID: String) throws {
        let now = clock.nowMillis
        try store.write { db in
            guard try db.statement(SQL.markDeleted).run(.integer(now), .text(keyID), .text(accountID)) == 1 else {
                throw DomainError.notFound("Key not found.")
            }
        }
        store.credentials.forgetKey(keyID)
    }

    /// Notes a request of the key: `last_used_at` when null or a minute old, and the host name
    /// when it changed. Writes nothing in the common case.
    public func recordUse(_ use: KeyUse, host: String?) throws {
        let now = clock.nowMillis
        let stale = use.lastUsedAt.map { now - $0 >= Self.lastUsedResolutionMillis } ?? true
        let newHost = host.flatMap { $0 == use.lastHost ? nil : $0 }
        guard stale || newHost != nil else { return }
        try store.write { db in
            if stale {
                try db.statement(SQL.touch).run(.integer(now), .text(use.keyID))
            }
            if let newHost {
                try db.statement(SQL.setHost).run(.text(newHost), .text(use.keyID))
            }
        }
        store.credentials.updateKeyUse(use.keyID, lastUsedAt: stale ? now : use.lastUsedAt, lastHost: newHost ?? use.lastHost)
    }

    static func fetch(_ db: Database, accountID: String, keyID: String) throws -> Key {
        let statement = try db.statement(SQL.get)
        try statement.bind(keyID, at: 1)
        try statement.bind(accountID, at: 2)
        defer { statement.reset() }
        guard try statement.step() else { throw DomainError.notFound("Key not found.") }
        return key(from: statement, accountID: accountID)
    }

    private static func key(from row: Statement, accountID: String) -> Key {
        var client: Key.Client?
        if let name = row.string(7) {
            client = Key.Client(name: name, version: row.string(8) ?? "")
        }
        return Key(
            id: row.string(0) ?? "", accountID: accountID, label: row.string(1) ?? "",
            prefix: row.string(2) ?? "", last4: row.string(3) ?? "", createdAt: row.int64(4),
            lastUsedAt: row.isNull(5) ? nil : row.int64(5), lastClient: client, lastHost: row.string(6),
            counts: Key.Counts(todo: row.int(9), inProgress: row.int(10), done: row.int(11), cancelled: row.int(12)))
    }

    enum SQL {
        static let columns = """
            id, label, prefix, last4, created_at, last_used_at, last_host, last_client_name, last_client_version, \
            todo_count, in_progress_count, done_count, cancelled_count
            """
        static let list = "SELECT \(columns) FROM keys WHERE account_id = ? AND deleted_at IS NULL ORDER BY rowid DESC"
        static let get = "SELECT \(columns) FROM keys WHERE id = ? AND account_id = ? AND deleted_at IS NULL"
        static let countLive = "SELECT count(*) FROM keys WHERE account_id = ? AND deleted_at IS NULL"
        static let insert = "INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
        static let updateLabel = "UPDATE keys SET label = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL"
        static let markDeleted = "UPDATE keys SET deleted_at = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL"
        static let touch = "UPDATE keys SET last_used_at = ? WHERE id = ?"
        static let setHost = "UPDATE keys SET last_host = ? WHERE id = ?"
    }
}
