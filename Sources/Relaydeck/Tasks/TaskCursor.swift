import Crypto

/// The position of a client in `GET /v1/tasks` (`rest-api.md#list-tasks`), opaque to it:
/// base64url of `snapshot.issuedAt.sortAt.taskID`.
///
/// Why a snapshot: the list is sorted by `updated_at`, and a task that changes between two
/// pages moves to the top, into what the client has already seen, so a plain "after this
/// `updated_at`" cursor would miss it (or show a task twice when it moves the other way).
/// The first page notes the change counter `changes.seq` as `snapshot`; every page then
/// orders the tasks by where they stood at that moment: `updated_at` for a task not moved
/// since, else the `old_updated_at` of its first move after the snapshot (`task_moves`).
/// That order never changes while the client pages, so each task that existed at the
/// snapshot and still exists comes exactly once; tasks made later are left out (the event
/// stream brings them).
public struct TaskCursor: Sendable, Equatable {
    /// The last `changes.seq` before the first page.
    public let snapshot: Int64
    /// The wall time of the first page: moves are kept 24 hours, so is the cursor.
    public let issuedAt: Int64
    /// The sort key and ID of the last task returned.
    public let sortAt: Int64
    public let taskID: String

    /// How long a cursor works, and how long `task_moves` rows are kept for it.
    public static let lifetimeMillis: Int64 = 24 * 3_600_000

    public init(snapshot: Int64, issuedAt: Int64, sortAt: Int64, taskID: String) {
        self.snapshot = snapshot
        self.issuedAt = issuedAt
        self.sortAt = sortAt
        self.taskID = taskID
    }

    public var text: String {
        Base64.encode(Array("\(snapshot).\(issuedAt).\(sortAt).\(taskID)".utf8), urlSafe: true, padded: false)
    }

    /// Reads a cursor this server wrote; nil for anything else.
    public init?(text: String) {
        guard let bytes = Base64.decode(text), let decoded = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = decoded.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let snapshot = Int64(parts[0]), let issuedAt = Int64(parts[1]),
              let sortAt = Int64(parts[2]), snapshot >= 0, issuedAt >= 0, sortAt >= 0,
              Identifier.isWellFormed(parts[3], prefix: "tsk_") else { return nil }
        self.init(snapshot: snapshot, issuedAt: issuedAt, sortAt: sortAt, taskID: String(parts[3]))
    }
}
