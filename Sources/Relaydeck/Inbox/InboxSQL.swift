/// The statements of `Inbox` (`inbox.md`). Items of one millisecond keep the order they were
/// added in: `rowid`, not the random part of the ID, breaks the tie.
enum InboxSQL {
    static let columns = """
        id, account_id, key_id, kind, from_key_id, from_label, task_id, question_id, text, created_at, read_at
        """
    static let insert = """
        INSERT INTO inbox_items (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL)
        """
    static let unreadCount = "SELECT count(*) AS unread FROM inbox_items WHERE key_id = $1 AND read_at IS NULL"
    /// `inbox.md#inbox-item`: past 200 unread items, the oldest unread item goes first.
    /// Written per dialect: the larger of two numbers is SQLite's scalar `max` and
    /// PostgreSQL's `greatest` (its `max` is only the aggregate). Each text is made once: this
    /// runs with every item added.
    static func dropOldestUnread(_ dialect: StoreDialect) -> String {
        switch dialect {
        case .sqlite: dropOldestUnreadSQLite
        case .postgres: dropOldestUnreadPostgres
        }
    }
    private static let dropOldestUnreadSQLite = dropOldestUnread(larger: "max")
    private static let dropOldestUnreadPostgres = dropOldestUnread(larger: "greatest")
    private static func dropOldestUnread(larger: String) -> String {
        """
        DELETE FROM inbox_items WHERE id IN (SELECT id FROM inbox_items WHERE key_id = $1 AND read_at IS NULL \
        ORDER BY created_at, rowid LIMIT \(larger)(0, (SELECT count(*) FROM inbox_items WHERE key_id = $1 AND read_at IS NULL) - $2))
        """
    }
    /// Unread items, oldest first.
    static let unread = """
        SELECT \(columns) FROM inbox_items WHERE key_id = $1 AND read_at IS NULL ORDER BY created_at, rowid LIMIT $2
        """
    static let markRead = "UPDATE inbox_items SET read_at = $1 WHERE id = $2"
    /// The most recent items of a key, read or not, newest first (`GET /v1/keys/{key_id}/inbox`).
    static let recent = """
        SELECT \(columns) FROM inbox_items WHERE key_id = $1 ORDER BY created_at DESC, rowid DESC LIMIT $2
        """
    /// `overview.md#retention`: 7 days unread, 24 hours after it was read. ?1 key, ?2 the
    /// oldest unread time kept, ?3 the oldest read time kept.
    static let prune = """
        DELETE FROM inbox_items WHERE key_id = $1 AND ((read_at IS NULL AND created_at < $2) OR read_at < $3)
        """
    /// A live key of the account with this exact label (`to` by label in `POST /v1/messages`).
    static let keysByLabel = "SELECT id FROM keys WHERE account_id = $1 AND label = $2 AND deleted_at IS NULL LIMIT 2"
}
