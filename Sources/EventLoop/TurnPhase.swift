/// The steps that end a loop turn, in the order they run: what the turn's events queued runs
/// phase by phase, each phase's work before any of the next, like the before-sleep step of
/// redis. Work a phase queues for an earlier phase runs before the loop goes on to later ones
/// (a wake-up that reads opens a read snapshot, and `endRead` comes after it again). Due timers
/// run only when every phase is empty, so no timer sees a write turn that is still open.
public enum TurnPhase: Int, CaseIterable, Sendable {
    /// Tasks on the loop's executor (`LoopExecutor`) that the turn's events resumed or started
    /// go on, until each ends or awaits what has not come yet: their writes are in before
    /// the turn's COMMIT.
    case tasks
    /// The turn's write transaction is committed (or rolled back), its held answers leave and
    /// its changes are published to subscribers.
    case commit
    /// Parked calls whose topics changed look again (and answer, or wait on).
    case wake
    /// The push outbox is drained: what the committed changes planned is sent.
    case pushes
    /// Batches of the turn's records are written (the activity log), each its own transaction.
    case record
    /// The answers of the turn's connections leave, one write each.
    case flush
    /// The read snapshot the turn's reads shared ends.
    case endRead
    /// Work handed back for later (`runSoon`): the result of a call that must not run inside
    /// its caller, such as a lookup answered at once. It runs with the turn closed.
    case later
}

/// The work queued for each phase of the current turn.
struct TurnWork {
    private var queues: [[() -> Void]] = Array(repeating: [], count: TurnPhase.allCases.count)
    private var queued = 0

    var isEmpty: Bool { queued == 0 }

    mutating func append(_ phase: TurnPhase, _ work: @escaping () -> Void) {
        queues[phase.rawValue].append(work)
        queued += 1
    }

    /// The work of the earliest phase that has any, taken out of the queue.
    mutating func takeEarliest() -> [() -> Void]? {
        guard queued > 0 else { return nil }
        for index in queues.indices where !queues[index].isEmpty {
            let batch = queues[index]
            queues[index].removeAll(keepingCapacity: true)
            queued -= batch.count
            return batch
        }
        return nil
    }
}
