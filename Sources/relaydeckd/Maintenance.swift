import EventLoop
import Logging
import Relaydeck

/// Runs the purge of deleted rows in small steps on the loop, from a kick (a deletion, the
/// start, the store coming back) until nothing is left; a failed step is tried again later.
final class Maintenance {
    private let loop: EventLoop
    private let purger: Purger
    private var timer: LoopTimer?

    init(loop: EventLoop, purger: Purger) {
        self.loop = loop
        self.purger = purger
    }

    /// Starts purging soon (after the current request's answer).
    func kick() {
        schedule(after: .milliseconds(1))
    }

    private func schedule(after delay: TimeSpan) {
        let timer = self.timer ?? loop.makeTimer { [unowned self] in self.step() }
        self.timer = timer
        let due = loop.now + delay
        if !timer.isScheduled || timer.deadline > due {
            loop.reschedule(timer, at: due)
        }
    }

    private func step() {
        do {
            // A few steps per wake-up, then yield to requests.
            for _ in 0..<4 {
                guard try purger.step() else { return }
            }
            schedule(after: .milliseconds(20))
        } catch {
            Log.warn("purge step failed; trying again in 5 s", ["error": String(describing: error)])
            schedule(after: .seconds(5))
        }
    }
}
