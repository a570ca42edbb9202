/// The statements of `Tasks`. A task is visible only while its key is live: the account's
/// reads join `keys` (`rest-api.md#keys`: a deleted key's data is gone for every route at
/// once, before the purge removes it).
enum TaskSQL {
    static let columns = """
        t.id, t.account_id, t.key_id, t.title, t.description, t.status, t.priority, t.notify, t.progress, \
        t.status_note, t.source, t.created_at, t.updated_at, t.completed_at, t.seen_at, t.host
        """

    /// ?1 task, ?2 account, ?3 key or NULL for the whole account.
    static let get = """
        SELECT \(columns) FROM tasks t JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL \
        WHERE t.id = ?1 AND t.account_id = ?2 AND (?3 IS NULL OR t.key_id = ?3)
        """

    /// `get`, and the change that last moved the task in the list order (`ListSnapshots`).
    static let getForChange = """
        SELECT \(columns), t.changed_seq FROM tasks t JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL \
        WHERE t.id = ?1 AND t.account_id = ?2 AND (?3 IS NULL OR t.key_id = ?3)
        """

    /// `get` for an API key's own task: the gate has just found the key live (its credential
    /// cache is exact, `CredentialCache`), so the join that checks it is left out (the key's
    /// row by its ID, 5,000 instructions of each task read and change of an agent).
    static let getOfKey = """
        SELECT \(columns) FROM tasks t WHERE t.id = ?1 AND t.account_id = ?2 AND t.key_id = ?3
        """
    static let getOfKeyForChange = """
        SELECT \(columns), t.changed_seq FROM tasks t WHERE t.id = ?1 AND t.account_id = ?2 AND t.key_id = ?3
        """

    /// A page is merged from two reads (see `Tasks.list`), both over the tasks of the account
    /// ?2 (or only of key ?3) with the statuses ?4 and priorities ?5 (`,a,b,` or NULL) that
    /// come before (?6, ?7) in the order of snapshot ?1, ?8 rows at most:
    ///
    /// - the tasks unchanged since the snapshot, whose place is their `updated_at`: one walk
    ///   down the list index that stops after ?8 rows;
    /// - the few tasks changed since (a list being paged while its tasks move), placed where
    ///   they stood at the snapshot (`task_moves`).
    static func unchanged(byKey: Bool) -> String {
        """
        SELECT \(columns), t.updated_at AS sort_at
        FROM tasks t JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL
        WHERE \(byKey ? "t.key_id = ?3 AND +t.account_id = ?2" : "t.account_id = ?2") AND t.changed_seq <= ?1
            AND (t.updated_at, t.id) < (?6, ?7) \(filters)
        ORDER BY t.updated_at DESC, t.id DESC LIMIT ?8
        """
    }

    static let moved = """
        SELECT * FROM (
            SELECT \(columns), coalesce(
                (SELECT m.old_updated_at FROM task_moves m WHERE m.task_id = t.id AND m.seq > ?1 ORDER BY m.seq LIMIT 1),
                t.updated_at) AS sort_at
            -- Without statistics the planner would walk all of the account's tasks.
            FROM tasks t INDEXED BY tasks_changed JOIN keys k ON k.id = t.key_id AND k.deleted_at IS NULL
            WHERE t.account_id = ?2 AND (?3 IS NULL OR t.key_id = ?3) AND t.changed_seq > ?1 AND t.created_seq <= ?1 \(filters)
        ) WHERE (sort_at, id) < (?6, ?7)
        ORDER BY sort_at DESC, id DESC LIMIT ?8
        """

    private static let filters = """
        AND (?4 IS NULL OR instr(?4, ',' || t.status || ',') > 0) \
        AND (?5 IS NULL OR instr(?5, ',' || t.priority || ',') > 0)
        """

    static let insert = """
        INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, progress, \
        status_note, source, created_at, updated_at, completed_at, seen_at, host, created_seq, changed_seq) \
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?17)
        """

    /// Every field a `PATCH` may change, with the change's sequence number.
    static let update = """
        UPDATE tasks SET title = ?2, description = ?3, status = ?4, priority = ?5, notify = ?6, progress = ?7, \
        status_note = ?8, updated_at = ?9, completed_at = ?10, changed_seq = ?11 WHERE id = ?1
        """

    static let delete = "DELETE FROM tasks WHERE id = ?"
    static let deleteMoves = "DELETE FROM task_moves WHERE task_id = ?"
    static let deleteRegistrations = "DELETE FROM live_activities WHERE task_id = ?"
    static let insertMove = "INSERT INTO task_moves (task_id, seq, old_updated_at, at) VALUES (?, ?, ?, ?)"
    static let pruneMoves = "DELETE FROM task_moves WHERE at < ?"
    /// `seen_at` is set once, and moves no task in the order (`inbox.md#task-field`).
    static let markSeen = "UPDATE tasks SET seen_at = ? WHERE id = ? AND seen_at IS NULL"

    static let bumpSeq = "UPDATE changes SET seq = seq + 1 WHERE id = 1"
    static let currentSeq = "SELECT seq FROM changes WHERE id = 1"

    static let counts = """
        SELECT todo_count + in_progress_count AS open, done_count + cancelled_count AS closed FROM keys WHERE id = ?
        """
    /// ?1 key, ?2 the status a task leaves, ?3 the status it takes (either NULL for a task
    /// that comes or goes): the key's `counts` (`rest-api.md#key`) in one statement.
    static let moveCount = """
        UPDATE keys SET todo_count = todo_count - iif(?2 = 'todo', 1, 0) + iif(?3 = 'todo', 1, 0), \
        in_progress_count = in_progress_count - iif(?2 = 'in_progress', 1, 0) + iif(?3 = 'in_progress', 1, 0), \
        done_count = done_count - iif(?2 = 'done', 1, 0) + iif(?3 = 'done', 1, 0), \
        cancelled_count = cancelled_count - iif(?2 = 'cancelled', 1, 0) + iif(?3 = 'cancelled', 1, 0) WHERE id = ?1
        """
    /// The closed task that goes first when the key has too many: the oldest by `updated_at`.
    static let oldestClosed = """
        SELECT id, status FROM tasks WHERE key_id = ?1 AND status IN ('done', 'cancelled') AND id != ?2 \
        ORDER BY updated_at, id LIMIT 1
        """
}
