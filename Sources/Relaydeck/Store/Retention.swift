import Clock
import SQLite

/// Deletes what the contract keeps only for a while (`overview.md#retention`), in small
/// batches so that no request waits behind it: closed tasks 90 days after their last
/// update (with `task.deleted`), questions 90 days after they closed, inbox items 7 days
/// unread or 24 hours after they were read, activity entries after 7 days, the list
/// cursors' notes of moved tasks after 24 hours, the web console's sessions 30 days
/// unused and its login links once expired (already refused then; here their rows go), and
/// OAuth's rows once they can do nothing: expired tokens and codes (a traded code an hour
/// later, `OAuthGrants.usedCodeKeptMillis`), grants left without a token that works, and
/// clients with no grant that nothing used for 30 days.
public final class Retention {
    public static let day: Int64 = 86_400_000
    public static let closedTasks = 90 * day
    public static let closedQuestions = 90 * day
    public static let unreadItems = 7 * day
    public static let readItems = day
    public static let activity = 7 * day
    public static let taskMoves = day
    /// Rows deleted per table and step, at most.
    public static let batchSize = 200

    private let store: any SessionStore
    private let clock: any Clock
    private let hub: EventHub

    public init(store: any SessionStore, clock: any Clock, hub: EventHub) {
        self.store = store
        self.clock = clock
        self.hub = hub
    }

    /// Deletes one batch of each kind. Returns true when more is due.
    ///
    /// The closed tasks go one account at a time, each account's in a write of that account
    /// (its commit group on PostgreSQL): their removal changes the key's and the account's
    /// counts, the rows an account's writes lock, so a write of several accounts' tasks could
    /// meet a group of one of them in the other order and wait for it while it waited too.
    @discardableResult
    public func step() async throws -> Bool {
        let now = clock.wallMillis
        let cutoff = now - Self.closedTasks
        let limit = SQLiteValue.integer(Int64(Self.batchSize))
        let accounts = try await store.reading { db in
            try await db.rows(SQL.accountsWithExpiredTasks, [.integer(cutoff), limit]) { try $0.text("account_id") }
        }
        // Each account's share of the batch: a step removes a batch of tasks at most, as before.
        var deleted = 0
        for (accountID, share) in Dictionary(accounts.map { ($0, 1) }, uniquingKeysWith: +).sorted(by: { $0.key < $1.key }) {
            deleted += try await store.writing(hub: hub, account: accountID) { db, turn -> Int in
                let expired = try await Self.expiredTasks(db, of: accountID, before: cutoff, limit: share)
                for task in expired {
                    try await Tasks.remove(db, turn, accountID: accountID, task.id, keyID: task.keyID, status: task.status,
                                     actor: .server, now: now)
                }
                return expired.count
            }
        }
        return try await store.writing { db -> Bool in
            deleted += try await db.run(SQL.deleteQuestions, .integer(now - Self.closedQuestions), limit)
            deleted += try await db.run(SQL.deleteUnread, .integer(now - Self.unreadItems), limit)
            deleted += try await db.run(SQL.deleteRead, .integer(now - Self.readItems), limit)
            deleted += try await db.run(SQL.deleteActivity, .integer(now - Self.activity), limit)
            deleted += try await db.run(SQL.deleteMoves, .integer(now - Self.taskMoves), limit)
            deleted += try await db.run(SQL.deleteIdleSessions, .integer(now - WebSignIn.sessionIdleMillis), limit)
            deleted += try await db.run(SQL.deleteExpiredLinks, .integer(now), limit)
            deleted += try await db.run(SQL.deleteExpiredAccessTokens, .integer(now), limit)
            deleted += try await db.run(SQL.deleteExpiredRefreshTokens, .integer(now), limit)
            deleted += try await db.run(SQL.deleteExpiredCodes, .integer(now - OAuthGrants.usedCodeKeptMillis), limit)
            deleted += try await db.run(SQL.deleteDeadGrants, .integer(now), limit)
            deleted += try await db.run(SQL.deleteIdleClients, .integer(now - OAuthClients.idleMillis), limit)
            return deleted > 0
        }
    }

    private struct ExpiredTask {
        let id: String
        let keyID: String
        let status: WorkTask.Status
    }

    private static func expiredTasks(_ db: any StoreSession, of accountID: String, before cutoff: Int64,
                                     limit: Int) async throws -> [ExpiredTask] {
        try await db.rows(SQL.expiredTasks(db.dialect), [.integer(cutoff), .text(accountID), .integer(Int64(limit))]) { row in
            ExpiredTask(id: try row.text("id"), keyID: try row.text("key_id"),
                        status: WorkTask.Status(rawValue: try row.text("status")) ?? .done)
        }
    }

    enum SQL {
        /// The accounts of the oldest closed tasks past their time (a batch's worth of tasks).
        static let accountsWithExpiredTasks = """
            SELECT account_id FROM tasks WHERE status IN ('done', 'cancelled') AND updated_at < $1 \
            ORDER BY updated_at LIMIT $2
            """
        /// An account's closed tasks past their time, oldest first. In PostgreSQL each is this
        /// step's until its COMMIT, and another node's step passes over it (`SKIP LOCKED`): a
        /// task is removed, and its `task.deleted` recorded, once.
        static func expiredTasks(_ dialect: StoreDialect) -> String {
            """
            SELECT id, key_id, status FROM tasks WHERE status IN ('done', 'cancelled') AND updated_at < $1 \
            AND account_id = $2 ORDER BY updated_at LIMIT $3\(dialect.skipLocked)
            """
        }
        static let deleteQuestions = """
            DELETE FROM questions WHERE rowid IN (SELECT rowid FROM questions WHERE status != 'pending' \
            AND closed_at < $1 LIMIT $2)
            """
        static let deleteUnread = """
            DELETE FROM inbox_items WHERE rowid IN (SELECT rowid FROM inbox_items WHERE read_at IS NULL \
            AND created_at < $1 LIMIT $2)
            """
        static let deleteRead = """
            DELETE FROM inbox_items WHERE rowid IN (SELECT rowid FROM inbox_items WHERE read_at < $1 LIMIT $2)
            """
        /// Each key's entries are in time order in the table's key: the walk over the keys
        /// (CROSS JOIN keeps that order; without statistics the planner would scan the whole
        /// log) finds each one's expired entries at its start. The join's terms are in WHERE,
        /// since PostgreSQL's CROSS JOIN takes no ON (SQLite's plan and program are the same).
        static let deleteActivity = """
            DELETE FROM activity WHERE (key_id, at, id) IN \
            (SELECT a.key_id, a.at, a.id FROM keys k CROSS JOIN activity a WHERE a.key_id = k.id AND a.at < $1 LIMIT $2)
            """
        static let deleteMoves = """
            DELETE FROM task_moves WHERE (task_id, seq) IN (SELECT task_id, seq FROM task_moves WHERE at < $1 LIMIT $2)
            """
        static let deleteIdleSessions = """
            DELETE FROM web_sessions WHERE rowid IN (SELECT rowid FROM web_sessions WHERE last_used_at <= $1 LIMIT $2)
            """
        static let deleteExpiredLinks = """
            DELETE FROM web_login_links WHERE rowid IN (SELECT rowid FROM web_login_links WHERE expires_at <= $1 LIMIT $2)
            """
        static let deleteExpiredAccessTokens = """
            DELETE FROM oauth_access_tokens WHERE token_hash IN \
            (SELECT token_hash FROM oauth_access_tokens WHERE expires_at <= $1 LIMIT $2)
            """
        static let deleteExpiredRefreshTokens = """
            DELETE FROM oauth_refresh_tokens WHERE token_hash IN \
            (SELECT token_hash FROM oauth_refresh_tokens WHERE expires_at <= $1 LIMIT $2)
            """
        static let deleteExpiredCodes = """
            DELETE FROM oauth_codes WHERE code_hash IN (SELECT code_hash FROM oauth_codes WHERE expires_at <= $1 LIMIT $2)
            """
        /// A grant is alive while it has a refresh token not traded yet, or an access token,
        /// that has not expired; one without either can never be used again.
        static let deleteDeadGrants = """
            DELETE FROM oauth_grants WHERE id IN (SELECT g.id FROM oauth_grants g \
            WHERE NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens r WHERE r.grant_id = g.id AND r.used_at IS NULL \
            AND r.expires_at > $1) \
            AND NOT EXISTS (SELECT 1 FROM oauth_access_tokens t WHERE t.grant_id = g.id AND t.expires_at > $1) LIMIT $2)
            """
        /// `OAuthClients`' own statement, written for both stores.
        static let deleteIdleClients = OAuthClients.SQL.deleteUnused
        static let all = [expiredTasks(.sqlite), deleteQuestions,
                          deleteUnread, deleteRead, deleteActivity, deleteMoves, deleteIdleSessions, deleteExpiredLinks,
                          deleteExpiredAccessTokens, deleteExpiredRefreshTokens, deleteExpiredCodes, deleteDeadGrants,
                          deleteIdleClients]
    }
}
