import EventLoop
import Logging
import Relaydeck

/// The store's housework on the loop, in small steps that yield to requests: the purge of
/// deleted keys and accounts (from a kick: a deletion, the start, the store coming back) and
/// retention (at the start and every ten minutes). A failed step is tried again later.
final class Maintenance {
    /// How often retention looks for what is due.
    static let retentionInterval = TimeSpan.seconds(600)

    private let loop: EventLoop
    private let purger: Purger
    private let retention: Retention
    private var purgeTimer: LoopTimer?
    private var retentionTimer: LoopTimer?

    init(loop: EventLoop, purger: Purger, retention: Retention) {
        self.loop = loop
        self.purger = purger
        self.retention = retention
    }

    /// Starts purging soon (after the current request's answer).
    func kick() {
        purgeTimer = schedule(purgeTimer, after: .milliseconds(1)) { [unowned self] in purge() }
    }

    /// Starts retention now and every `retentionInterval`.
    func startRetention() {
        retentionTimer = schedule(retentionTimer, after: .milliseconds(1)) { [unowned self] in retain() }
    }

    private func schedule(_ existing: LoopTimer?, after delay: TimeSpan, _ work: @escaping () -> Void) -> LoopTimer {
        let timer = existing ?? loop.makeTimer(work)
        let due = loop.now + delay
        if !timer.isScheduled || timer.deadline > due {
            loop.reschedule(timer, at: due)
        }
        return timer
    }

    private func purge() {
        loop.startTask { [unowned self] in await purgeSteps() }
    }

    private func purgeSteps() async {
        await run("purge", purger.step) { [unowned self] delay in
            // Nothing left: the next deletion kicks it again.
            guard let delay else { return }
            purgeTimer = schedule(purgeTimer, after: delay) { [unowned self] in purge() }
        }
    }

    private func retain() {
        loop.startTask { [unowned self] in await retentionSteps() }
    }

    /// Retention records what it deletes (`task.deleted`), which plans through a store
    /// session: a task on the loop, as each step of the purge is.
    private func retentionSteps() async {
        await run("retention", retention.step) { [unowned self] delay in
            retentionTimer = schedule(retentionTimer, after: delay ?? Self.retentionInterval) { [unowned self] in retain() }
        }
    }

    /// A few steps per wake-up, then yield; `again` gets the delay of the next wake-up (nil
    /// when nothing is left).
    private func run(_ name: String, _ step: () async throws -> Bool, again: (TimeSpan?) -> Void) async {
        do {
            for _ in 0..<4 {
                guard try await step() else {
                    again(nil)
                    return
                }
            }
            again(.milliseconds(20))
        } catch {
            Log.warn("\(name) step failed; trying again in 5 s", ["error": String(describing: error)])
            again(.seconds(5))
        }
    }
}
