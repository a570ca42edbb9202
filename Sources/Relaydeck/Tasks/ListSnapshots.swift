/// Which list snapshots a client may still page from (`TaskCursor`), so that a task's move is
/// noted in `task_moves` only when a cursor can need it.
///
/// A cursor of snapshot S places a task that moved after S where it stood at S: at the
/// `old_updated_at` of its first move after S. That move is the one whose task was last
/// changed at or before S (`changed_seq <= S`). So a move needs its row only when some
/// snapshot S that a cursor carries has `changed_seq <= S`: no list paged since the task's
/// last change, no row. An agent's progress ticks are such moves: each row cost two B-tree
/// inserts, their pages at each COMMIT and the prune, 22,000 instructions of a `PATCH`
/// (`BENCHMARKS.md`, round 4).
///
/// The snapshots handed out are noted here, in memory, per account. Those of an earlier
/// process are not, so every task changed at or before `floor` (the change counter when this
/// process first moved a task, at least every snapshot handed out before) keeps noting its
/// moves as before. Used on the loop thread only, like the `Tasks` that holds it. Not with
/// PostgreSQL: several nodes may serve one account, and the cursor one handed out is unknown
/// to the others, so there every move is noted.
final class ListSnapshots {
    /// The newest snapshot handed out in a cursor, per account, with when it was.
    private var newest: [String: (snapshot: Int64, issuedAt: Int64)] = [:]
    /// At least every snapshot handed out before this process; nil until the first move.
    private var floor: Int64?

    /// A page of the account's list handed out a cursor of `snapshot` at `issuedAt`.
    func handedOut(accountID: String, snapshot: Int64, issuedAt: Int64) {
        if let known = newest[accountID], known.snapshot >= snapshot { return }
        newest[accountID] = (snapshot, issuedAt)
    }

    /// Whether the move of a task of the account last changed at `changedSeq`, made as change
    /// number `seq` at `now`, needs its row: a cursor may hold a snapshot at or after
    /// `changedSeq`.
    func needsRow(accountID: String, changedSeq: Int64, seq: Int64, now: Int64) -> Bool {
        // The counter just before this change: no earlier snapshot can be above it.
        let floor = self.floor ?? (seq - 1)
        self.floor = floor
        if changedSeq <= floor { return true }
        guard let known = newest[accountID] else { return false }
        if now - known.issuedAt > TaskCursor.lifetimeMillis {
            // Its cursors have expired: the account needs no rows until it lists again.
            newest[accountID] = nil
            return false
        }
        return changedSeq <= known.snapshot
    }
}
