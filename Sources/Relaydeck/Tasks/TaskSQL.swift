/// The statements of `Tasks`. A task is visible only while its key is live: the account's
/// reads join `keys` (`rest-api.md#keys`: a deleted key's data is gone for every route at
/// once, before the purge removes it).
enum TaskSQL {
    static let columns = """
        t.id, t.account_id, t.key_id, t.title, t.description, t.status, t.priority, t.notify, t.progress, \
        t.status_note, t.source, t.created_at, t.updated_at, t.completed_at, t.seen_at, t.host
        """

    /// $1 task, $2 account, $3 key or NULL for the whole account. `CAST($3 AS TEXT) IS NULL`
    /// reads the same in both dialects and gives PostgreSQL the parameter's type (with a bare
    /// `$3 IS NULL` first it cannot tell it: `42P08`).
    static let get = """
        SELECT \(columns) FROM tasks t JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL \
        WHERE t.id = $1 AND t.account_id = $2 AND (CAST($3 AS TEXT) IS NULL OR t.key_id = $3)
        """

    /// `get`, and the change that last moved the task in the list order (`ListSnapshots`).
    static let getForChange = """
        SELECT \(columns), t.changed_seq FROM tasks t JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL \
        WHERE t.id = $1 AND t.account_id = $2 AND (CAST($3 AS TEXT) IS NULL OR t.key_id = $3)
        """

    /// `get` for an API key's own task: the gate has just found the key live (its credential
    /// cache is exact, `CredentialCache`), so the join that checks it is left out (the key's
    /// row by its ID, 5,000 instructions of each task read and change of an agent).
    static let getOfKey = """
        SELECT \(columns) FROM tasks t WHERE t.id = $1 AND t.account_id = $2 AND t.key_id = $3
        """
    static let getOfKeyForChange = """
        SELECT \(columns), t.changed_seq FROM tasks t WHERE t.id = $1 AND t.account_id = $2 AND t.key_id = $3
        """

    /// A page is merged from two reads (see `Tasks.list`), both over the tasks of the account
    /// $2 (or only of key $3) with the statuses $4 and priorities $5 (`,a,b,` or NULL) that
    /// come before ($6, $7) in the order of snapshot $1, $8 rows at most:
    ///
    /// - the tasks unchanged since the snapshot, whose place is their `updated_at`: one walk
    ///   down the list index that stops after $8 rows;
    /// - the few tasks changed since (a list being paged while its tasks move), placed where
    ///   they stood at the snapshot (`task_moves`).
    ///
    /// Written per dialect: SQLite's are told which index to walk (`INDEXED BY`, and `+` to
    /// keep a term off an index), and `instr` is PostgreSQL's `strpos`. A page of the whole
    /// account binds $3 to NULL and says so, since a parameter skipped would shift the others
    /// in SQLite (`StoreSession`).
    static func unchanged(byKey: Bool, _ dialect: StoreDialect) -> String {
        let owner = switch (byKey, dialect) {
        case (true, .sqlite): "+t.account_id = $2 AND t.key_id = $3"
        case (true, .postgres): "t.account_id = $2 AND t.key_id = $3"
        case (false, .sqlite): "t.account_id = $2 AND $3 IS NULL"
        case (false, .postgres): "t.account_id = $2 AND $3::text IS NULL"
        }
        return byteCut("""
            SELECT \(columns), t.updated_at AS sort_at
            FROM tasks t JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL
            WHERE t.changed_seq <= $1 AND \(owner) \(filters(dialect)) AND (t.updated_at, t.id) < ($6, $7)
            ORDER BY t.updated_at DESC, t.id DESC LIMIT $8
            """, dialect)
    }

    static func moved(_ dialect: StoreDialect) -> String {
        let (index, key) = dialect == .sqlite ? ("INDEXED BY tasks_changed", "$3") : ("", "$3::text")
        return byteCut("""
            SELECT * FROM (
                SELECT \(columns), coalesce(
                    (SELECT m.old_updated_at FROM task_moves m WHERE m.task_id = t.id AND m.seq > $1 ORDER BY m.seq LIMIT 1),
                    t.updated_at) AS sort_at
                -- Without statistics SQLite's planner would walk all of the account's tasks.
                FROM tasks t \(index) JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL
                WHERE t.changed_seq > $1 AND t.account_id = $2 AND (\(key) IS NULL OR t.key_id = $3) \
                AND t.created_seq <= $1 \(filters(dialect))
            ) moved WHERE (sort_at, id) < ($6, $7)
            ORDER BY sort_at DESC, id DESC LIMIT $8
            """, dialect)
    }

    /// PostgreSQL's rows of a page read cut where `Tasks.list`'s byte budget ($9) stops
    /// reading: each row whose tasks before it hold at most $9 bytes (`WorkTask.pageBytes`,
    /// which `octet_length` gives exactly, without reading a long value), and the first two
    /// rows always. SQLite's step stops there by itself (`StoreSession.rows(through:)`); a
    /// PostgreSQL answer comes whole, and without the cut a page of 500 tasks of 80 KB each
    /// would cross the network and be decoded (40 MB, a loop turn of a second) for a page
    /// of 13.
    private static func byteCut(_ query: String, _ dialect: StoreDialect) -> String {
        guard dialect == .postgres else { return query }
        return """
            SELECT * FROM (
                SELECT page.*, row_number() OVER (ORDER BY sort_at DESC, id DESC) AS page_row,
                    sum(400 + octet_length(title) + octet_length(description) + coalesce(octet_length(status_note), 0)
                        + coalesce(octet_length(host), 0))
                        OVER (ORDER BY sort_at DESC, id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS bytes_before
                FROM (\(query)) page
            ) cut WHERE page_row <= 2 OR bytes_before <= $9
            ORDER BY sort_at DESC, id DESC
            """
    }

    private static func filters(_ dialect: StoreDialect) -> String {
        let (find, text) = dialect == .sqlite ? ("instr", "") : ("strpos", "::text")
        return """
            AND ($4\(text) IS NULL OR \(find)($4, ',' || t.status || ',') > 0) \
            AND ($5\(text) IS NULL OR \(find)($5, ',' || t.priority || ',') > 0)
            """
    }

    static let insert = """
        INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, progress, \
        status_note, source, created_at, updated_at, completed_at, seen_at, host, created_seq, changed_seq) \
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
        """

    /// Every field a `PATCH` may change, with the change's sequence number.
    static let update = """
        UPDATE tasks SET title = $1, description = $2, status = $3, priority = $4, notify = $5, progress = $6, \
        status_note = $7, updated_at = $8, completed_at = $9, changed_seq = $10 WHERE id = $11
        """

    static let delete = "DELETE FROM tasks WHERE id = $1"
    static let deleteMoves = "DELETE FROM task_moves WHERE task_id = $1"
    static let deleteRegistrations = "DELETE FROM live_activities WHERE task_id = $1"
    static let insertMove = "INSERT INTO task_moves (task_id, seq, old_updated_at, at) VALUES ($1, $2, $3, $4)"
    static let pruneMoves = "DELETE FROM task_moves WHERE at < $1"
    /// `seen_at` is set once, and moves no task in the order (`inbox.md#task-field`).
    static let markSeen = "UPDATE tasks SET seen_at = $1 WHERE id = $2 AND seen_at IS NULL"

    static let bumpSeq = "UPDATE changes SET seq = seq + 1 WHERE id = 1"
    static let currentSeq = "SELECT seq FROM changes WHERE id = 1"

    static let counts = """
        SELECT todo_count + in_progress_count AS open, done_count + cancelled_count AS closed FROM keys WHERE id = $1
        """
    /// $1 the status a task leaves, $2 the status it takes (either NULL for a task that comes
    /// or goes), $3 the key: the key's `counts` (`rest-api.md#key`) in one statement.
    static let moveCount = """
        UPDATE keys SET \
        todo_count = todo_count - CASE WHEN $1 = 'todo' THEN 1 ELSE 0 END + CASE WHEN $2 = 'todo' THEN 1 ELSE 0 END, \
        in_progress_count = in_progress_count - CASE WHEN $1 = 'in_progress' THEN 1 ELSE 0 END \
        + CASE WHEN $2 = 'in_progress' THEN 1 ELSE 0 END, \
        done_count = done_count - CASE WHEN $1 = 'done' THEN 1 ELSE 0 END + CASE WHEN $2 = 'done' THEN 1 ELSE 0 END, \
        cancelled_count = cancelled_count - CASE WHEN $1 = 'cancelled' THEN 1 ELSE 0 END \
        + CASE WHEN $2 = 'cancelled' THEN 1 ELSE 0 END WHERE id = $3
        """
    /// The closed task that goes first when the key has too many: the oldest by `updated_at`.
    static let oldestClosed = """
        SELECT id, status FROM tasks WHERE key_id = $1 AND status IN ('done', 'cancelled') AND id != $2 \
        ORDER BY updated_at, id LIMIT 1
        """
}
