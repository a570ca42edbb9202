import SQLite

/// How much text one account may keep (`ACCOUNT_STORAGE_LIMIT`): the UTF-8 bytes of every
/// text a client gives, in tasks (title, description, status note), questions (prompt,
/// options, answer) and inbox items (messages, and the lines the server writes for the
/// person's changes). Key labels, devices and the activity log are left out: each is small
/// and capped by count.
///
/// The count is kept, never scanned: migration 8 gives each key a `text_bytes` that
/// triggers move with every insert, change and delete of those rows, in the write's own
/// transaction, whoever makes it (a request, the purge, retention, the closed-task cap);
/// migration 14 makes the same triggers move the account's `text_bytes` too, which is the
/// account's use: one row read per check. It counts the rows of deleted keys until the purge
/// has removed them (their text is still on disk), as the sum over the keys did.
///
/// Only a write that grows the account's text is refused, and only by what it adds itself;
/// a write that keeps or shrinks it always passes, so a full account can always make room
/// by editing or deleting. An inbox line the server adds for the person's change is counted
/// but never refuses that change.
public struct StorageQuota: Sendable, Equatable {
    /// 256 MiB: room for thousands of tasks with long descriptions.
    public static let defaultLimit = 256 * 1024 * 1024

    /// Bytes of text an account may keep.
    public var limit: Int

    public init(limit: Int = Self.defaultLimit) {
        self.limit = limit
    }

    /// Refuses with `409 conflict` a write that adds `growth` bytes to the account when that
    /// would take it past the limit. Call it inside the write's transaction, before writing.
    func admit(_ db: any StoreSession, accountID: String, growth: Int) async throws {
        guard growth > 0 else { return }
        // The account's row is this write's until its COMMIT (PostgreSQL), so two writers
        // cannot both fit in the room one of them leaves.
        try await db.lockAccount(accountID)
        let used = try await Self.used(db, accountID: accountID)
        guard used + growth > limit else { return }
        throw DomainError.storageFull(fullMessage)
    }

    /// What the refusal says: what is full, and how to make room.
    public var fullMessage: String {
        "The account's storage is full: its tasks, questions and messages may hold \(Self.describe(limit)) of text. "
            + "Delete tasks or questions, or shorten their text, to make room."
    }

    /// The bytes of text the account keeps now.
    public static func used(_ db: any StoreSession, accountID: String) async throws -> Int {
        try await db.firstRow(SQL.used, [.text(accountID)]) { try $0.int("used") } ?? 0
    }

    /// The counted bytes of texts, as migration 8's triggers count them.
    static func bytes(_ texts: String?...) -> Int {
        texts.reduce(0) { $0 + ($1?.utf8.count ?? 0) }
    }

    static func bytes(of task: WorkTask) -> Int {
        bytes(task.title, task.description, task.statusNote)
    }

    /// `256 MiB`, `1,536 KiB`, `1,000 bytes`: the largest binary unit that divides exactly.
    public static func describe(_ bytes: Int) -> String {
        for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= size && bytes % size == 0 {
            return "\(TextRules.grouped(bytes / size)) \(unit)"
        }
        return "\(TextRules.grouped(bytes)) bytes"
    }

    enum SQL {
        /// One row (migration 14). The sum over the account's keys it replaces read 20 rows:
        /// 32,000 instructions of a task creation, against about 3,000 for this.
        static let used = "SELECT text_bytes AS used FROM accounts WHERE id = $1"
    }
}
