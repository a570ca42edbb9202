import EventLoop
import Relaydeck
import SQLite

/// Every committed change, for the other nodes of the database (issue 25: "a question
/// answered on node B wakes the call waiting on node A and the event streams of every node
/// carry it, in commit order per account"). A transaction that recorded changes appends them
/// as its last statement before COMMIT (`append`); the append notifies `channel`, which
/// PostgreSQL delivers only if the transaction commits, in commit order. Each node listens
/// (`ChangeFeedListener`) and reads the rows after the last number it handled (`read`), so a
/// notification lost with a connection costs nothing: the next read finds the rows.
///
/// The tables are `PostgresSchema.severalNodesMigration`'s; their comment says why the numbers
/// follow the commits. Statements only: the caller's session, transaction and errors.
public enum ChangeFeed {
    /// The NOTIFY channel. The payload is the last number appended, in decimal: at most 20
    /// bytes, far under PostgreSQL's 8,000 and the client's 8 KiB for a notification.
    public static let channel = "relaydeck_feed"
    /// How long rows stay by default: a node away longer learns it missed rows (`read`'s
    /// `missed`) and has its streams start again.
    public static let defaultRetention = TimeSpan.seconds(600)

    /// Writes `changes` as the next rows, in order, and notifies `channel`, in one statement;
    /// returns the last number given (nil for no changes: nothing is written). From this
    /// statement to the end of its transaction, every other append waits for it (the head's
    /// row lock), so it must be the last statement before COMMIT. READ COMMITTED, as the
    /// store's sessions are: under REPEATABLE READ an append behind another would fail with
    /// 40001 instead of waiting.
    ///
    /// `node` names the writer (1 to 64 bytes), whose own listener passes over its rows.
    @discardableResult
    public static func append(_ changes: [Change], node: String, in session: any StoreSession) async throws -> Int64? {
        guard let (sql, values) = try appending(changes, node: node) else { return nil }
        return try await session.firstRow(sql, values) { try $0.int64("last") }
    }

    /// `append`'s statement and its values, for a caller that sends it in one batch with its
    /// COMMIT (`PostgresSession.commit(after:_:)`); nil for no changes.
    public static func appending(_ changes: [Change], node: String) throws -> (sql: String, values: [StoreValue])? {
        guard !changes.isEmpty else { return nil }
        var array: [UInt8] = [UInt8(ascii: "[")]
        for (index, change) in changes.enumerated() {
            if index > 0 { array.append(UInt8(ascii: ",")) }
            array += try change.feedBytes()
        }
        array.append(UInt8(ascii: "]"))
        return (SQL.append, [.text(String(decoding: array, as: UTF8.self)), .text(node)])
    }

    /// At most `limit` rows after number `after`, in order, with whether any row after it is
    /// gone (pruned, or a number past the head: the database is not the one read before).
    public static func read(after: Int64, limit: Int, in session: any StoreSession) async throws -> ChangeFeedPage {
        let rows = try await session.rows(SQL.read, [.integer(after), .integer(Int64(limit))]) { row in
            ChangeFeedPage.Row(head: try row.int64("head"), seq: try row.optionalInt64("seq"), node: try row.optionalText("node"),
                               change: try row.optionalText("change"))
        }
        return ChangeFeedPage(after: after, rows: rows)
    }

    /// The last number handed out: where a node that starts reads from.
    public static func head(in session: any StoreSession) async throws -> Int64 {
        try await session.firstRow(SQL.head, []) { try $0.int64("seq") } ?? 0
    }

    /// Removes at most `limit` of the rows written more than `retention` ago, lowest numbers
    /// first; returns how many. For a background job, run again while it returns `limit`.
    @discardableResult
    public static func prune(olderThan retention: TimeSpan = defaultRetention, limit: Int = 10_000,
                             in session: any StoreSession) async throws -> Int {
        try await session.run(SQL.prune, [.integer(retention.milliseconds), .integer(Int64(limit))])
    }

    enum SQL {
        /// The changes come as one JSON array (`json`, not `jsonb`, keeps each element's text
        /// as written), numbered after the head in their order. `pg_notify` runs once, with
        /// the last number.
        static let append = """
            WITH incoming AS (
                SELECT value AS change, ordinality AS n FROM json_array_elements($1::json) WITH ORDINALITY
            ), head AS (
                UPDATE change_feed_head SET seq = seq + (SELECT count(*) FROM incoming) WHERE id = 1 RETURNING seq
            ), added AS (
                INSERT INTO change_feed (seq, account_id, node, change)
                SELECT head.seq - (SELECT count(*) FROM incoming) + incoming.n, incoming.change ->> 'account', $2,
                       incoming.change::text
                FROM head, incoming RETURNING seq
            )
            SELECT pg_notify('\(channel)', max(seq)::text) AS notified, max(seq) AS last FROM added
            """
        /// The head beside the rows, read in one snapshot: no rows and a head past `$1`, or a
        /// first row past `$1 + 1`, means rows were pruned.
        static let read = """
            SELECT h.seq AS head, f.seq AS seq, f.node AS node, f.change AS change FROM change_feed_head h
            LEFT JOIN LATERAL (SELECT seq, node, change FROM change_feed WHERE seq > $1 ORDER BY seq LIMIT $2) f ON true
            WHERE h.id = 1 ORDER BY f.seq
            """
        static let head = "SELECT seq FROM change_feed_head WHERE id = 1"
        /// The rows up to the newest one older than the retention, at most `$2` of them: the
        /// lowest numbers go first, so what is left has no holes.
        static let prune = """
            DELETE FROM change_feed WHERE seq <= (
                SELECT max(seq) FROM change_feed WHERE at < clock_timestamp() - $1::bigint * interval '1 millisecond'
            ) AND seq < (SELECT min(seq) FROM change_feed) + $2
            """
    }
}
