import Clock
import SQLite

/// The activity log of each API key (`rest-api.md#activity-log`): one entry per request of the
/// key, written after its answer; the newest 200 of a key kept (trimmed in steps,
/// `ActivityTrims`; the pages show only those 200); read by the account newest first, a page
/// at a time. The 7-day expiry (`overview.md#retention`) is `Retention`'s;
/// until it runs, reads already leave older entries out.
public final class ActivityLog {
    /// `overview.md#limits`: "The oldest entry is removed first."
    public static let keptPerKey = 200
    /// `overview.md#retention`
    public static let keptMillis: Int64 = 7 * 24 * 60 * 60 * 1000
    public static let pageSizes = 1...100
    public static let defaultPageSize = 50

    private let store: any SessionStore
    private let clock: any Clock
    private let random: any RandomSource
    private var trims = ActivityTrims()

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource) {
        self.store = store
        self.clock = clock
        self.random = random
    }

    /// One entry to add (`appendAll`), before it has an ID.
    public struct Pending: Sendable {
        public var keyID: String
        public var at: Int64
        public var surface: ActivityEntry.Surface
        public var action: String
        public var ok: Bool
        public var code: String?
        public var message: String?
        public var durationMillis: Int64
        public var client: Key.Client?
        public var host: String?

        public init(keyID: String, at: Int64, surface: ActivityEntry.Surface, action: String, ok: Bool,
                    code: String?, message: String?, durationMillis: Int64, client: Key.Client?, host: String?) {
            self.keyID = keyID
            self.at = at
            self.surface = surface
            self.action = action
            self.ok = ok
            self.code = code
            self.message = message
            self.durationMillis = durationMillis
            self.client = client
            self.host = host
        }
    }

    /// Adds an entry (its ID made here, from `at`) and removes what is past the newest 200 of
    /// the key, in one transaction.
    @discardableResult
    public func append(keyID: String, at: Int64, surface: ActivityEntry.Surface, action: String, ok: Bool,
                       code: String?, message: String?, durationMillis: Int64, client: Key.Client?,
                       host: String?) async throws -> ActivityEntry {
        try await appendAll([Pending(keyID: keyID, at: at, surface: surface, action: action, ok: ok, code: code,
                               message: message, durationMillis: durationMillis, client: client, host: host)])[0]
    }

    /// Returns once every write in flight when it was called has ended: a batch sent before
    /// (`ActivityRecorder.flush`, on a connection of its own with PostgreSQL's pool) has
    /// committed or failed, so a read after this sees it. At once with SQLite.
    public func writesEnded() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            store.afterWritesInFlight { done.resume() }
        }
    }

    /// Adds the entries in one transaction, and trims the keys they name that are due
    /// (`ActivityTrims`). The server gathers the entries of a batch here: a commit (and its
    /// WAL frames) per batch instead of one per request of a key.
    @discardableResult
    public func appendAll(_ pending: [Pending]) async throws -> [ActivityEntry] {
        let entries = pending.map { item in
            ActivityEntry(
                id: Identifier.make("act_", millis: item.at, random: random), keyID: item.keyID, at: item.at,
                surface: item.surface, action: item.action, ok: item.ok, code: item.ok ? nil : item.code,
                message: item.ok ? nil : item.message, durationMillis: max(0, item.durationMillis),
                client: item.client, host: item.host)
        }
        guard !entries.isEmpty else { return [] }
        do {
            try await store.writing { db in
                var keys: [String: Int] = [:]
                for entry in entries {
                    try await db.run(
                        SQL.insert, .text(entry.id), .text(entry.keyID), .integer(entry.at), .text(entry.surface.rawValue),
                        .text(entry.action), .text(entry.ok ? "ok" : "error"), Self.value(entry.code),
                        Self.value(entry.message), .integer(entry.durationMillis), Self.value(entry.client?.name),
                        Self.value(entry.client?.version), Self.value(entry.host))
                    keys[entry.keyID, default: 0] += 1
                }
                for (keyID, count) in keys where trims.add(count, to: keyID) {
                    try await db.run(SQL.trim, .text(keyID), .integer(Int64(Self.keptPerKey)))
                }
            }
        } catch {
            // The trims counted were rolled back with the entries.
            trims.forget()
            throw error
        }
        return entries
    }

    /// One page of the log of a live key of the account, newest first (entries of one
    /// millisecond in the order of their IDs, whose random part makes it arbitrary but
    /// fixed, so pages still visit each once); the cursor of the
    /// next page, or nil on the last. A key of another account, or a deleted one, is `404`
    /// `Key not found.` (`rest-api.md#activity-log`).
    public func page(accountID: String, keyID: String, limit: Int, after cursor: ActivityCursor?) async throws
        -> (entries: [ActivityEntry], next: ActivityCursor?) {
        let since = clock.wallMillis - Self.keptMillis
        return try await store.reading { db in
            _ = try await Keys.fetch(db, accountID: accountID, keyID: keyID)
            // The log may hold up to `ActivityTrims.slack` entries past the newest 200 until
            // its next trim: the pages stop at the 200th.
            let oldest = try await db.firstRow(SQL.newestKept, [.text(keyID), .integer(Int64(Self.keptPerKey))]) { row in
                (at: try row.int64("at"), id: try row.text("id"))
            } ?? (at: 0, id: "")
            var values: [SQLiteValue] = [.text(keyID), .integer(since), .integer(oldest.at), .text(oldest.id)]
            if let cursor { values += [.integer(cursor.at), .integer(cursor.at), .text(cursor.id)] }
            // One more than asked for tells whether another page follows.
            values.append(.integer(Int64(limit + 1)))
            var entries = try await db.rows(cursor == nil ? SQL.firstPage : SQL.nextPage, values) { try ActivityEntry(row: $0) }
            guard entries.count > limit else { return (entries, nil) }
            entries.removeLast(entries.count - limit)
            let last = entries[entries.count - 1]
            return (entries, ActivityCursor(at: last.at, id: last.id))
        }
    }

    private static func value(_ text: String?) -> SQLiteValue {
        text.map { .text($0) } ?? .null
    }

    /// Written for both stores (`$N`, each first in order: `StoreSession`).
    enum SQL {
        static let columns = """
            id, key_id, at, surface, action, status, code, message, duration_ms, client_name, client_version, host
            """
        static let insert = "INSERT INTO activity (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        /// $1 key, $2 how many to keep: everything of the key older than its $2-th newest entry,
        /// one range of the table's key (nothing when the key has fewer).
        static let trim = """
            DELETE FROM activity WHERE key_id = $1 AND (at, id) < \
            (SELECT at, id FROM activity WHERE key_id = $1 ORDER BY at DESC, id DESC LIMIT 1 OFFSET $2 - 1)
            """
        /// $1 key, $2 how many are kept: the oldest entry the log's pages show (none when the
        /// key has fewer).
        static let newestKept = """
            SELECT at, id FROM activity WHERE key_id = $1 ORDER BY at DESC, id DESC LIMIT 1 OFFSET $2 - 1
            """
        /// Key, the 7-day cut, then the oldest entry kept (`newestKept`, or 0 and '').
        static let firstPage = """
            SELECT \(columns) FROM activity WHERE key_id = $1 AND at >= $2 AND (at, id) >= ($3, $4) \
            ORDER BY at DESC, id DESC LIMIT $5
            """
        static let nextPage = """
            SELECT \(columns) FROM activity WHERE key_id = $1 AND at >= $2 AND (at, id) >= ($3, $4) \
            AND (at < $5 OR (at = $6 AND id < $7)) ORDER BY at DESC, id DESC LIMIT $8
            """
    }
}
