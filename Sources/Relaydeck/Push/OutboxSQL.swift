/// The statements of the push outbox (`PushPlanner`, `Outbox`).
enum OutboxSQL {
    static let jobColumns = """
        id, account_id, device_id, token_kind, task_id, environment, token, push_type, topic, priority, collapse_id, \
        expiration, payload, attempts
        """
    static let insertJob = """
        INSERT INTO push_jobs (account_id, device_id, token_kind, task_id, environment, token, push_type, topic, \
        priority, collapse_id, expiration, payload, due_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
        """
    /// $1 the lease's end, $2 now, $3 how many: the due jobs that no live lease holds, oldest
    /// due first, leased. In PostgreSQL the rows another node is claiming are passed over,
    /// not waited for.
    static func claimJobs(_ dialect: StoreDialect) -> String {
        """
        UPDATE push_jobs SET leased_until = $1 WHERE id IN (SELECT id FROM push_jobs WHERE due_at <= $2 \
        AND (leased_until IS NULL OR leased_until <= $2) ORDER BY due_at, id LIMIT $3\
        \(dialect.skipLocked)) RETURNING \(jobColumns)
        """
    }
    static let release = "UPDATE push_jobs SET leased_until = NULL WHERE id = $1"
    /// One process of a SQLite store at its start: every lease is a dead process's.
    static let releaseAll = "UPDATE push_jobs SET leased_until = NULL WHERE leased_until IS NOT NULL"
    static let deleteJob = "DELETE FROM push_jobs WHERE id = $1"
    static let retryJob = "UPDATE push_jobs SET attempts = attempts + 1, due_at = $1, leased_until = NULL WHERE id = $2"
    static let jobCount = "SELECT count(*) AS n FROM push_jobs"
    /// The next due time after $1, and the next end of a lease after it (the job comes back then).
    static let nextJob = """
        SELECT min(at) AS at FROM (SELECT min(due_at) AS at FROM push_jobs WHERE due_at > $1 \
        UNION ALL SELECT min(leased_until) FROM push_jobs WHERE leased_until > $1) next
        """
    static let deleteJobsOfAccount = "DELETE FROM push_jobs WHERE account_id = $1"
    static let deleteJobsOfDevice = "DELETE FROM push_jobs WHERE account_id = $1 AND device_id = $2"
    /// ?1 token, ?2 and ?3 the registration that keeps it.
    static let deleteJobsOfToken = "DELETE FROM push_jobs WHERE token = $1 AND NOT (account_id = $2 AND device_id = $3)"

    /// ?1 kind, ?2 account, ?3 subject, ?4 now, ?5 the window's length: due at once when
    /// nothing went out in the last window, else when it ends; a push already waiting keeps
    /// its time (it will carry the newest state anyway).
    static let markWindow = """
        INSERT INTO push_windows (kind, account_id, subject, last_sent_at, due_at) VALUES ($1, $2, $3, NULL, $4) \
        ON CONFLICT (kind, account_id, subject) DO UPDATE SET \
        due_at = coalesce(push_windows.due_at, CASE WHEN $4 > coalesce(push_windows.last_sent_at + $5, 0) THEN $4 \
        ELSE coalesce(push_windows.last_sent_at + $5, 0) END)
        """
    /// $1 now, $2 how many; in PostgreSQL locked until the opening write commits, and passed
    /// over by another node's.
    static func dueWindows(_ dialect: StoreDialect) -> String {
        """
        SELECT kind, account_id, subject FROM push_windows WHERE due_at <= $1 ORDER BY due_at LIMIT $2\
        \(dialect.skipLocked)
        """
    }
    static let windowSent = "UPDATE push_windows SET last_sent_at = $1, due_at = NULL WHERE kind = $2 AND account_id = $3 AND subject = $4"
    /// Windows that ended with nothing waiting: their row says nothing any more. ?1 now,
    /// ?2 the longest window.
    /// (`CAST`: PostgreSQL cannot tell the type of a difference of two parameters; the column
    /// alone on its side keeps SQLite on the index of idle windows.)
    static let pruneWindows = "DELETE FROM push_windows WHERE due_at IS NULL AND last_sent_at < CAST($1 AS BIGINT) - $2"
    static let nextWindow = "SELECT min(due_at) AS at FROM push_windows WHERE due_at IS NOT NULL"
    static let nextWindowAfter = "SELECT min(due_at) AS at FROM push_windows WHERE due_at > $1"
    static let deleteWindow = "DELETE FROM push_windows WHERE kind = $1 AND account_id = $2 AND subject = $3"
    static let deleteWindowsOfAccount = "DELETE FROM push_windows WHERE account_id = $1"

    static let liveActivitiesSetting = "SELECT live_activities FROM accounts WHERE id = $1"
    static let keyLabel = "SELECT label FROM keys WHERE id = $1"
    static let devices = """
        SELECT account_id, id, platform, model, os_version, app_version, apns_environment, apns_token, \
        push_to_start_token, widget_push_token, updated_at FROM devices WHERE account_id = $1 ORDER BY rowid
        """
    static let device = """
        SELECT account_id, id, platform, model, os_version, app_version, apns_environment, apns_token, \
        push_to_start_token, widget_push_token, updated_at FROM devices WHERE account_id = $1 AND id = $2
        """
    static let task = """
        SELECT t.id, t.account_id, t.key_id, t.title, t.description, t.status, t.priority, t.notify, t.progress, \
        t.status_note, t.source, t.created_at, t.updated_at, t.completed_at, t.seen_at, t.host FROM tasks t WHERE t.id = $1
        """
    static let tasksOfKeyWithActivities = "SELECT DISTINCT task_id FROM live_activities l JOIN tasks t ON t.id = l.task_id WHERE t.key_id = $1"
    static let oldestPendingQuestion = """
        SELECT \(Questions.SQL.columns) FROM questions q WHERE q.task_id = $1 AND q.status = 'pending' \
        ORDER BY q.created_at, q.id LIMIT 1
        """
    /// The registrations of a task with their device's platform and environment.
    static let registrations = """
        SELECT l.device_id AS device_id, l.push_token AS push_token, d.platform AS platform, \
        d.apns_environment AS apns_environment FROM live_activities l \
        JOIN devices d ON d.account_id = l.account_id AND d.id = l.device_id \
        WHERE l.task_id = $1 AND l.account_id = $2 ORDER BY l.updated_at, l.device_id
        """
    static let registered = "SELECT 1 FROM live_activities WHERE task_id = $1 AND device_id = $2 AND account_id = $3"
    static let hasRegistrations = "SELECT 1 FROM live_activities WHERE task_id = $1 AND account_id = $2"
    static let deleteRegistrations = "DELETE FROM live_activities WHERE task_id = $1 AND account_id = $2"

    /// A refused token goes, only if the device still has that token (a new `PUT` may have
    /// replaced it meanwhile). ?1 now, ?2 account, ?3 device, ?4 token.
    static let clearAPNsToken = "UPDATE devices SET apns_token = NULL, updated_at = $1 WHERE account_id = $2 AND id = $3 AND apns_token = $4"
    static let clearStartToken = """
        UPDATE devices SET push_to_start_token = NULL, updated_at = $1 WHERE account_id = $2 AND id = $3 AND push_to_start_token = $4
        """
    static let clearWidgetToken = """
        UPDATE devices SET widget_push_token = NULL, updated_at = $1 WHERE account_id = $2 AND id = $3 AND widget_push_token = $4
        """
    /// ?1 task, ?2 device, ?3 account, ?4 token.
    static let removeRegistration = "DELETE FROM live_activities WHERE task_id = $1 AND device_id = $2 AND account_id = $3 AND push_token = $4"
}
