import Relaydeck

/// The recording writes of one account that come while one runs, committed together: one
/// transaction on one connection, each write in a savepoint of its own, run one after the other in the order
/// they came, then one change-feed row and one COMMIT for all of them
/// (`PostgresSessionStore.writing(hub:)`). PostgreSQL's own group commit cannot gather them:
/// each recording write holds the change feed's head (and often its account's row) to its
/// COMMIT, so separate transactions never reach their COMMITs together and each waits for a
/// WAL flush of its own. The loop turn's group commit on SQLite, carried over.
///
/// A member whose body throws is rolled back to its savepoint alone and answers at once; one
/// whose body returned waits for the COMMIT and shares its outcome. Once the connection is
/// lost (or none was had) the group is broken: every member after that fails with it, and
/// those that had returned get the COMMIT's failure. Loop thread only.
final class CommitGroup {
    /// The most members a group takes: past it the next write starts a group of its own (on
    /// another connection), so a steady stream of writes still reaches a COMMIT, and no member
    /// waits behind more than this many bodies.
    static let maxMembers = 32

    /// Whether the running task is a member's body: a recording write it starts is a
    /// transaction of its own, never a member of the group it would wait for.
    @TaskLocal static var insideMember = false

    /// The account whose writes the group takes.
    let account: String
    /// The group's connection, held until its COMMIT; nil until its first member has one.
    var link: PostgresLink?
    /// Why the group cannot commit; each member after it fails with this.
    var broken: (any Error)?
    /// The changes of each member that returned, in the order the members ran.
    private(set) var kept = KeptChanges()
    /// Members whose body returned.
    private(set) var succeeded = 0
    /// Members that joined, the running one included.
    private(set) var members = 0
    /// No member joins any more: its COMMIT is under way or done.
    private(set) var isClosed = false
    private var running = false
    private var line: [CheckedContinuation<Void, Never>] = []
    private var outcome: Result<Void, any Error>?
    private var waitingForOutcome: [CheckedContinuation<Void, Never>] = []

    init(account: String) {
        self.account = account
    }

    /// Whether another write may join.
    var isOpen: Bool { !isClosed && members < Self.maxMembers }

    /// Joins, and waits for this member's turn: the members run one after the other, in the
    /// order they joined.
    func turn() async {
        members += 1
        guard running else {
            running = true
            return
        }
        await withCheckedContinuation { line.append($0) }
    }

    /// A member's body returned, with these changes, its savepoint released.
    func succeeded(with changes: KeptChanges) {
        kept.take(changes)
        succeeded += 1
    }

    /// The member whose turn it was is done: the next one runs. True when none waits: the
    /// group closes, and the caller commits it.
    func next() -> Bool {
        guard line.isEmpty else {
            line.removeFirst().resume()
            return false
        }
        running = false
        isClosed = true
        return true
    }

    /// The COMMIT's outcome, for every member that waits for it.
    func finish(_ result: Result<Void, any Error>) {
        outcome = result
        let waiting = waitingForOutcome
        waitingForOutcome = []
        for member in waiting { member.resume() }
    }

    /// Waits for the COMMIT's outcome.
    func committed() async -> Result<Void, any Error> {
        if let outcome { return outcome }
        await withCheckedContinuation { waitingForOutcome.append($0) }
        return outcome ?? .failure(PostgresSessionStore.unavailable)
    }
}

@available(*, unavailable, message: "a group belongs to the loop thread, as its connection does")
extension CommitGroup: Sendable {}
