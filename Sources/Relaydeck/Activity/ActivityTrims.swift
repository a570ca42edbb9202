/// When a key's activity log is trimmed to its newest 200 (`ActivityLog.keptPerKey`).
///
/// A trim finds the key's 200th newest entry by walking the 200 (its `OFFSET`), about 30,000
/// instructions, and ran for every key of every batch: with a few requests a batch (one agent
/// working alone, or callgrind's pace) it was a third of an entry's cost. Now a key is trimmed
/// the first time this process writes to its log (its length before is not known here), then
/// once `slack` more entries have come: it holds at most `keptPerKey + slack` entries, and the
/// log's reads stop at the newest `keptPerKey` (`ActivityLog.SQL.newestKept`), so no client
/// sees the difference. Each entry is still deleted once, in the trim after it leaves the
/// newest 200.
///
/// Counts are kept in memory for the keys written since the start, at most `keysKept` of them;
/// past that they are forgotten, and each key is trimmed again at its next entry. Used on the
/// loop thread only, like the `ActivityLog` that holds it.
struct ActivityTrims {
    /// Entries a key may hold past its newest 200 before the trim.
    static let slack = 100
    static let keysKept = 10_000

    /// Entries written per key since its last trim.
    private var sinceTrim: [String: Int] = [:]

    /// Notes `count` new entries of `keyID`; true when the key's log is to be trimmed now.
    mutating func add(_ count: Int, to keyID: String) -> Bool {
        if let written = sinceTrim[keyID], written + count <= Self.slack {
            sinceTrim[keyID] = written + count
            return false
        }
        if sinceTrim.count >= Self.keysKept && sinceTrim[keyID] == nil {
            sinceTrim.removeAll(keepingCapacity: true)
        }
        sinceTrim[keyID] = 0
        return true
    }

    /// Forgets every count: each key is trimmed at its next entry (after a rollback, which
    /// undid trims counted here).
    mutating func forget() {
        sinceTrim.removeAll(keepingCapacity: true)
    }
}
