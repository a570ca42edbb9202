import Clock
import SQLite

/// The activity log of each API key (`rest-api.md#activity-log`): one entry per request of the
/// key, written after its answer; the newest 200 of a key kept; read by the account newest
/// first, a page at a time. The 7-day expiry (`overview.md#retention`) is `Retention`'s;
/// until it runs, reads already leave older entries out.
public final class ActivityLog {
    /// `overview.md#limits`: "The oldest entry is removed first."
    public static let keptPerKey = 200
    /// `overview.md#retention`
    public static let keptMillis: Int64 = 7 * 24 * 60 * 60 * 1000
    public static let pageSizes = 1...100
    public static let defaultPageSize = 50

    private let store: Store
    private let clock: any Clock
    private let random: any RandomSource

    public init(store: Store, clock: any Clock, random: any RandomSource) {
        self.store = store
        self.clock = clock
        self.random = random
    }

    /// Adds an entry (its ID made here, from `at`) and removes what is past the newest 200 of
    /// the key, in one transaction.
    @discardableResult
    public func append(keyID: String, at: Int64, surface: ActivityEntry.Surface, action: String, ok: Bool,
                       code: String?, message: String?, durationMillis: Int64, client: Key.Client?,
                       host: String?) throws -> ActivityEntry {
        let entry = ActivityEntry(
            id: Identifier.make("act_", millis: at, random: random), keyID: keyID, at: at, surface: surface,
            action: action, ok: ok, code: ok ? nil : code, message: ok ? nil : message,
            durationMillis: max(0, durationMillis), client: client, host: host)
        try store.write { db in
            try db.statement(SQL.insert).run(
                .text(entry.id), .text(keyID), .integer(entry.at), .text(surface.rawValue), .text(action),
                .text(ok ? "ok" : "error"), Self.value(entry.code), Self.value(entry.message),
                .integer(entry.durationMillis), Self.value(client?.name), Self.value(client?.version), Self.value(host))
            try db.statement(SQL.trim).run(.text(keyID), .text(keyID), .integer(Int64(Self.keptPerKey)))
        }
        return entry
    }

    /// One page of the log of a live key of the account, newest first (entries of one
    /// millisecond in the order of their IDs, whose random part makes it arbitrary but
    /// fixed, so pages still visit each once); the cursor of the
    /// next page, or nil on the last. A key of another account, or a deleted one, is `404`
    /// `Key not found.` (`rest-api.md#activity-log`).
    public func page(accountID: String, keyID: String, limit: Int, after cursor: ActivityCursor?) throws
        -> (entries: [ActivityEntry], next: ActivityCursor?) {
        let since = clock.wallMillis - Self.keptMillis
        return try store.read { db in
            _ = try Keys.fetch(db, accountID: accountID, keyID: keyID)
            var values: [SQLiteValue] = [.text(keyID), .integer(since)]
            if let cursor { values += [.integer(cursor.at), .integer(cursor.at), .text(cursor.id)] }
            // One more than asked for tells whether another page follows.
            values.append(.integer(Int64(limit + 1)))
            var entries = try db.rows(cursor == nil ? SQL.firstPage : SQL.nextPage, values) { try ActivityEntry(row: $0) }
            guard entries.count > limit else { return (entries, nil) }
            entries.removeLast(entries.count - limit)
            let last = entries[entries.count - 1]
            return (entries, ActivityCursor(at: last.at, id: last.id))
        }
    }

    private static func value(_ text: String?) -> SQLiteValue {
        text.map { .text($0) } ?? .null
    }

    enum SQL {
        static let columns = """
            id, key_id, at, surface, action, status, code, message, duration_ms, client_name, client_version, host
            """
        static let insert = "INSERT INTO activity (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        static let trim = """
            DELETE FROM activity WHERE key_id = ? AND rowid IN \
            (SELECT rowid FROM activity WHERE key_id = ? ORDER BY at DESC, id DESC LIMIT -1 OFFSET ?)
            """
        static let firstPage = """
            SELECT \(columns) FROM activity WHERE key_id = ? AND at >= ? ORDER BY at DESC, id DESC LIMIT ?
            """
        static let nextPage = """
            SELECT \(columns) FROM activity WHERE key_id = ? AND at >= ? AND (at < ? OR (at = ? AND id < ?)) \
            ORDER BY at DESC, id DESC LIMIT ?
            """
    }
}
