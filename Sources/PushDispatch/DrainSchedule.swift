import Clock
import EventLoop

/// When a dispatcher drains its outbox: soon after a kick (at the end of the current turn,
/// once the request that planned a push is answered), at a wall time (the next due job, a
/// retry), and never after `stop`. One timer at a time, the earliest wanted. A drain reads
/// and writes the outbox through a store session, so it runs as a task on the loop (with
/// SQLite it has ended when it is started); one at a time, and a drain wanted while one runs
/// comes right after it. With `lookAgainMillis`, a drain also comes at most that long after
/// the one before. Loop thread only.
final class DrainSchedule {
    private let loop: EventLoop
    private let clock: any Clock
    /// With several nodes on one database: the longest wait between two drains. Only the
    /// node that planned a job kicks its drain, so a job another node planned after this
    /// node's last drain (and left claimed when it died, or not claimed at all) is known to
    /// no timer here; this node finds it at its next look. Nil with one process (SQLite),
    /// whose own kicks and timers know every job.
    let lookAgainMillis: Int64?
    /// The drain itself; set by the owner.
    var drain: () async -> Void = {}
    private var draining = false
    private var drainAgain = false
    private var queued = false
    private var timer: LoopTimer?
    private var timerDue: Int64?
    private(set) var stopped = false

    init(loop: EventLoop, clock: any Clock, lookAgainMillis: Int64? = nil) {
        self.loop = loop
        self.clock = clock
        self.lookAgainMillis = lookAgainMillis
    }

    /// Drains after the current event (a request and its answer) is handled.
    func kick() {
        guard !queued, !stopped else { return }
        queued = true
        loop.atEndOfTurn(.pushes) { [weak self] in
            guard let self else { return }
            queued = false
            if !stopped { startDrain() }
        }
    }

    /// Drains at `due` (wall milliseconds) unless the timer is already due earlier.
    func wake(at due: Int64) {
        if let timerDue, timerDue <= due, timer != nil { return }
        arm(at: due)
    }

    /// Drains at `due`, replacing the timer.
    func arm(at due: Int64) {
        guard !stopped else { return }
        if let timer { loop.cancel(timer) }
        timerDue = due
        let delay = TimeSpan(nanoseconds: max(0, due - clock.wallMillis) * 1_000_000)
        timer = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            timer = nil
            timerDue = nil
            if !stopped { startDrain() }
        }
    }

    private func startDrain() {
        guard !draining else {
            drainAgain = true
            return
        }
        draining = true
        loop.startTask { [self] in
            repeat {
                drainAgain = false
                await drain()
            } while drainAgain && !stopped
            draining = false
            if let lookAgainMillis, !stopped { wake(at: clock.wallMillis + lookAgainMillis) }
        }
    }

    /// `work` as a task on the loop: what becomes of a send once it is answered, written
    /// through a store session.
    func run(_ work: @escaping () async -> Void) {
        loop.startTask(work)
    }

    /// The wait before a job's next try after `attempts` failed ones: `first`, doubling each
    /// time, at most `most` (milliseconds).
    static func backoff(attempts: Int, first: Int64, most: Int64) -> Int64 {
        min(first << Int64(min(attempts, 20)), most)
    }

    /// For good: no more drains.
    func stop() {
        stopped = true
        if let timer { loop.cancel(timer) }
        timer = nil
        timerDue = nil
    }
}
