#if canImport(Glibc)
import Glibc
#endif
@_exported import Clock
import CLinux
import Logging

/// One epoll loop on one thread. It owns every registered descriptor's handler, the timers,
/// and the work queued for the end of each turn (`TurnPhase`); nothing in it is locked except
/// the cross-thread queue of `EventLoopHandle`. Every method but those of the handle must be
/// called on the loop thread.
public final class EventLoop {
    public let clock: any Clock
    /// The time at the start of the current iteration. Reading it costs nothing, so handlers
    /// use it instead of asking the clock for every request.
    public private(set) var now: Instant

    private let epollFD: Int32
    private var registrations: [Slot] = []
    private var nextGeneration: UInt32 = 1
    private var timers = TimerQueue()
    private var endOfTurn = TurnWork()
    private var stopped = false
    private var events: UnsafeMutableBufferPointer<epoll_event>
    /// Events reported in a turn that had used up `turnBudget` before reaching them; the next
    /// turn handles them first, before what epoll reports anew.
    private var deferred: [epoll_event] = []

    /// How long one turn handles events before it leaves the rest for the next: many clients
    /// whose requests each cost a millisecond or two (a large page) arrive together, and
    /// without a bound one turn would serve them all before anyone else. The events left are
    /// handled first in the next turn (after its timers and queued work of this one), so every
    /// client waits about one budget for its turn, whatever the others ask. Epoll is
    /// level-triggered, so a left event is never lost, and a stale one (its socket read in
    /// between) only meets a read that would block.
    public var turnBudget = TimeSpan.milliseconds(4)
    public let handle: EventLoopHandle
    /// The loop's thread as an executor of tasks (`startTask`).
    public private(set) lazy var executor = LoopExecutor(loop: self)
    /// The tasks kept for `startTask(_: LoopTask)`.
    let workers = TaskWorkers()
    /// The CPU time of each turn so far (`TurnCPU`), for the metrics.
    public private(set) var turnCPU = TurnCPU()
    /// The thread's CPU time when the last turn ended; nil before the first (`run` sets it).
    private var cpuAtLastTurnEnd: Int64?
    private let threadCPU: () -> Int64
    private var wakeRegistration: IORegistration?
    private var signalSource: SignalSource?

    private struct Slot {
        var handler: (any IOHandler)?
        var generation: UInt32
    }

    /// `threadCPU` reads the loop thread's CPU time in nanoseconds (tests give their own).
    public init(clock: any Clock = SystemClock.shared, maxEventsPerWait: Int = 256,
                threadCPU: @escaping () -> Int64 = SystemClock.threadCPUNanoseconds) throws(Errno) {
        self.clock = clock
        self.threadCPU = threadCPU
        self.now = clock.now
        epollFD = try retryingEINTR { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        events = .allocate(capacity: maxEventsPerWait)
        let wakeFD: Int32
        do {
            wakeFD = try retryingEINTR { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            close(epollFD)
            events.deallocate()
            throw error
        }
        handle = EventLoopHandle(eventFD: wakeFD)
        wakeRegistration = try register(fd: wakeFD, interest: .readable, handler: WakeHandler(handle: handle))
    }

    deinit {
        if let registration = wakeRegistration {
            unregister(registration)
        }
        close(handle.eventFD)
        close(epollFD)
        events.deallocate()
    }

    // MARK: Descriptors

    /// Adds `fd` to the loop. The handler is kept alive until `unregister`.
    public func register(fd: Int32, interest: Interest, handler: any IOHandler) throws(Errno) -> IORegistration {
        precondition(fd >= 0)
        let index = Int(fd)
        if index >= registrations.count {
            registrations.append(contentsOf: repeatElement(Slot(handler: nil, generation: 0), count: index + 1 - registrations.count))
        }
        precondition(registrations[index].handler == nil, "descriptor \(fd) registered twice")
        let generation = nextGeneration
        nextGeneration = nextGeneration == UInt32.max ? 1 : nextGeneration + 1
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = Self.pack(fd: fd, generation: generation)
        try retryingEINTR { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
        registrations[index] = Slot(handler: handler, generation: generation)
        return IORegistration(fd: fd, generation: generation)
    }

    public func modify(_ registration: IORegistration, interest: Interest) throws(Errno) {
        guard isCurrent(registration) else { return }
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = Self.pack(fd: registration.fd, generation: registration.generation)
        try retryingEINTR { epoll_ctl(epollFD, EPOLL_CTL_MOD, registration.fd, &event) }
    }

    /// Removes the descriptor from the loop and releases its handler. Call it before closing
    /// the descriptor. Events already fetched for it in this iteration are dropped.
    public func unregister(_ registration: IORegistration) {
        guard isCurrent(registration) else { return }
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, registration.fd, &event)
        registrations[Int(registration.fd)] = Slot(handler: nil, generation: 0)
    }

    public func isCurrent(_ registration: IORegistration) -> Bool {
        let index = Int(registration.fd)
        return index < registrations.count
            && registrations[index].generation == registration.generation
            && registrations[index].handler != nil
    }

    private static func pack(fd: Int32, generation: UInt32) -> UInt64 {
        (UInt64(generation) << 32) | UInt64(UInt32(bitPattern: fd))
    }

    // MARK: Timers

    /// Schedules `callback` to run on the loop at `deadline` (or at once if it has passed).
    @discardableResult
    public func schedule(at deadline: Instant, _ callback: @escaping () -> Void) -> LoopTimer {
        let timer = LoopTimer(deadline: deadline, callback: callback)
        timers.schedule(timer, at: deadline)
        return timer
    }

    @discardableResult
    public func schedule(after span: TimeSpan, _ callback: @escaping () -> Void) -> LoopTimer {
        schedule(at: now + span, callback)
    }

    /// A timer that is not scheduled yet; `reschedule` arms it.
    public func makeTimer(_ callback: @escaping () -> Void) -> LoopTimer {
        LoopTimer(deadline: now, callback: callback)
    }

    /// Moves (or arms again) a timer.
    public func reschedule(_ timer: LoopTimer, at deadline: Instant) {
        timers.schedule(timer, at: deadline)
    }

    public func cancel(_ timer: LoopTimer) {
        timers.remove(timer)
    }

    public var scheduledTimerCount: Int { timers.count }

    // MARK: Work

    /// Runs `work` in `phase` of the current turn, after its events are handled and before the
    /// loop sleeps again (`TurnPhase` gives the order).
    public func atEndOfTurn(_ phase: TurnPhase, _ work: @escaping () -> Void) {
        endOfTurn.append(phase, work)
    }

    /// Runs `work` on this loop once the current turn's phases are done, before the loop sleeps
    /// again (for a result that must not be handed back inside its caller).
    public func runSoon(_ work: @escaping () -> Void) {
        endOfTurn.append(.later, work)
    }

    /// Signals arrive as events on the loop instead of interrupting it. Blocks them for this
    /// thread, so call it before starting other threads (they inherit the mask).
    public func handleSignals(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) throws(Errno) {
        precondition(signalSource == nil, "handleSignals called twice")
        let source = try SignalSource(signals: signals, handler: handler)
        do {
            source.registration = try register(fd: source.fd, interest: .readable, handler: source)
        } catch {
            source.close()
            throw error
        }
        signalSource = source
    }

    // MARK: Running

    /// Runs until `stop()`.
    public func run() {
        stopped = false
        cpuAtLastTurnEnd = threadCPU()
        while !stopped {
            runOnce(maxWait: nil)
        }
    }

    public func stop() {
        stopped = true
    }

    /// Turns until `done` holds, or until `limit` has passed on the loop's clock (nil: no
    /// limit), for a command or a test that waits for one result. Whether `done` held.
    @discardableResult
    public func run(until done: () -> Bool, within limit: TimeSpan? = nil) -> Bool {
        let deadline = limit.map { clock.now + $0 }
        while !done() {
            if let deadline, clock.now >= deadline { return false }
            runOnce(maxWait: .milliseconds(20))
        }
        return true
    }

    /// One iteration: wait for events (at most until the next timer, or `maxWait`), handle
    /// them, then the end of the turn phase by phase (`TurnPhase`), then each due timer
    /// followed by the phases of the work it queued.
    public func runOnce(maxWait: TimeSpan? = nil) {
        var timeout = Int32(-1)
        if !endOfTurn.isEmpty || !deferred.isEmpty {
            timeout = 0
        } else {
            var wait: TimeSpan? = maxWait
            if let deadline = timers.nextDeadline {
                let untilTimer = max(.zero, deadline - clock.now)
                wait = wait.map { min($0, untilTimer) } ?? untilTimer
            }
            if let wait {
                timeout = Int32(clamping: wait.millisecondsRoundedUp)
            }
        }
        let count = epoll_wait(epollFD, events.baseAddress, Int32(events.count), timeout)
        now = clock.now
        if count < 0 && Errno.current != .interrupted {
            Log.error("epoll_wait failed", ["errno": Errno.current.description])
        }
        dispatch(max(0, Int(count)))
        // What the events queued first (the turn's COMMIT, its answers), then the timers, each
        // after the work the one before it queued: a timer never runs inside a turn that is
        // still open, so it never reads rows that a failing COMMIT then takes back.
        endTurn()
        runTimers()
        // One read of the thread's CPU time a turn: the span since the last turn's end.
        let cpu = threadCPU()
        if let last = cpuAtLastTurnEnd {
            turnCPU.record(nanoseconds: cpu - last)
        }
        cpuAtLastTurnEnd = cpu
    }

    /// Handles the events left from the last turn, then the `count` new ones, until the turn's
    /// budget is used up; what is left waits for the next turn (`turnBudget`).
    private func dispatch(_ count: Int) {
        let batch = UnsafeMutableBufferPointer(rebasing: events[0..<count])
        if !deferred.isEmpty {
            // A descriptor both left over and reported again is handled once, with both.
            var merged = deferred
            deferred = []
            var position: [UInt64: Int] = [:]
            for (index, event) in merged.enumerated() { position[event.data.u64] = index }
            for event in batch {
                if let index = position[event.data.u64] {
                    merged[index].events |= event.events
                } else {
                    merged.append(event)
                }
            }
            merged.withUnsafeMutableBufferPointer { handle($0) }
            return
        }
        handle(batch)
    }

    private func handle(_ batch: UnsafeMutableBufferPointer<epoll_event>) {
        let start = now
        for i in batch.indices {
            if i > 0 && clock.now - start > turnBudget {
                deferred = Array(batch[i...])
                return
            }
            let event = batch[i]
            let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: event.data.u64))
            let generation = UInt32(truncatingIfNeeded: event.data.u64 >> 32)
            let index = Int(fd)
            // An earlier handler in this batch may have closed this descriptor, and an
            // accept may have reused its number: the generation tells them apart.
            guard index < registrations.count,
                  registrations[index].generation == generation,
                  let handler = registrations[index].handler else { continue }
            handler.handleIO(IOEvents(rawValue: event.events))
        }
    }

    private func runTimers() {
        // Timers armed by a callback wait for the next iteration, so a callback that re-arms
        // itself for "now" cannot starve the loop.
        let mark = timers.schedulingMark
        while let timer = timers.popExpired(now: now, scheduledBefore: mark) {
            timer.callback()
            endTurn()
        }
    }

    /// Runs the queued phases, always the earliest that has work next.
    private func endTurn() {
        while let batch = endOfTurn.takeEarliest() {
            for work in batch { work() }
        }
    }

    private final class WakeHandler: IOHandler {
        let handle: EventLoopHandle
        init(handle: EventLoopHandle) { self.handle = handle }

        func handleIO(_ events: IOEvents) {
            var value: UInt64 = 0
            _ = read(handle.eventFD, &value, 8)
            for work in handle.takeAll() { work() }
        }
    }
}
