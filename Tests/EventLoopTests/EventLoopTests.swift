#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization
import Testing
@testable import EventLoop

final class RecordingHandler: IOHandler {
    var calls: [IOEvents] = []
    var onEvent: ((IOEvents) -> Void)?
    func handleIO(_ events: IOEvents) {
        calls.append(events)
        onEvent?(events)
    }
}

@Suite struct EventLoopTests {
    @Test func timersFireWhenTheManualClockReachesThem() throws {
        let clock = ManualClock()
        let loop = try EventLoop(clock: clock)
        var fired: [String] = []
        loop.schedule(after: .milliseconds(100)) { fired.append("a") }
        let b = loop.schedule(after: .milliseconds(200)) { fired.append("b") }
        loop.schedule(after: .milliseconds(300)) { fired.append("c") }
        loop.runOnce(maxWait: .zero)
        #expect(fired.isEmpty)
        clock.advance(by: .milliseconds(150))
        loop.runOnce(maxWait: .zero)
        #expect(fired == ["a"])
        loop.cancel(b)
        clock.advance(by: .milliseconds(500))
        loop.runOnce(maxWait: .zero)
        #expect(fired == ["a", "c"])
        #expect(loop.scheduledTimerCount == 0)
    }

    @Test func aTimerThatReschedulesItselfForNowWaitsForTheNextIteration() throws {
        let clock = ManualClock()
        let loop = try EventLoop(clock: clock)
        var count = 0
        var timer: LoopTimer!
        timer = loop.makeTimer {
            count += 1
            loop.reschedule(timer, at: loop.now)
        }
        loop.reschedule(timer, at: loop.now)
        loop.runOnce(maxWait: .zero)
        #expect(count == 1)
        loop.runOnce(maxWait: .zero)
        #expect(count == 2)
    }

    @Test func realTimersWaitAboutTheirDelay() throws {
        let loop = try EventLoop()
        var fired = false
        let start = loop.clock.now
        loop.schedule(after: .milliseconds(30)) { fired = true; loop.stop() }
        loop.run()
        #expect(fired)
        #expect(loop.clock.now - start >= .milliseconds(30))
    }

    @Test func runUntilStopsWhenTheWorkIsDoneOrTheLimitPasses() throws {
        let loop = try EventLoop()
        var fired = false
        loop.schedule(after: .milliseconds(10)) { fired = true }
        #expect(loop.run(until: { fired }, within: .seconds(10)))
        #expect(fired)
        // Nothing will make it true: the limit ends the turns, and says so.
        let start = loop.clock.now
        #expect(!loop.run(until: { false }, within: .milliseconds(30)))
        #expect(loop.clock.now - start >= .milliseconds(30))
    }

    @Test func readableDescriptorIsDelivered() throws {
        let loop = try EventLoop()
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        defer { close(fd) }
        let handler = RecordingHandler()
        let registration = try loop.register(fd: fd, interest: .readable, handler: handler)
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
        loop.runOnce(maxWait: .zero)
        #expect(handler.calls.count == 1)
        #expect(handler.calls.first?.contains(.readable) == true)
        loop.unregister(registration)
        loop.runOnce(maxWait: .zero)
        #expect(handler.calls.count == 1)
    }

    /// Four descriptors stay readable; each handler takes 3 ms of the manual clock. A turn with
    /// a 4 ms budget handles two, and the next turn starts with the two it left, once each,
    /// before the ones epoll reports again.
    @Test func aTurnPastItsBudgetLeavesTheRestForTheStartOfTheNextTurn() throws {
        let clock = ManualClock()
        let loop = try EventLoop(clock: clock)
        loop.turnBudget = .milliseconds(4)
        var order: [Int] = []
        var descriptors: [Int32] = []
        var handlers: [RecordingHandler] = []
        var registrations: [IORegistration] = []
        for index in 0..<4 {
            let fd = eventfd(1, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
            let handler = RecordingHandler()
            handler.onEvent = { _ in
                order.append(index)
                clock.advance(by: .milliseconds(3))
            }
            descriptors.append(fd)
            handlers.append(handler)
            registrations.append(try loop.register(fd: fd, interest: .readable, handler: handler))
        }
        loop.runOnce(maxWait: .zero)
        #expect(order.count == 2)
        let handledFirst = Set(order)
        loop.runOnce(maxWait: .zero)
        #expect(order.count == 4)
        #expect(Set(order[2...]) == Set(0..<4).subtracting(handledFirst))
        for registration in registrations { loop.unregister(registration) }
        for fd in descriptors { close(fd) }
    }

    /// Each turn's CPU time, from the end of the turn before, lands in its bucket: the time a
    /// handler and the queued work it left take, and nothing for the turn before `run`.
    @Test func eachTurnsCPUTimeIsCountedInItsBucketAndTheLongestKept() throws {
        var cpu: Int64 = 0
        let loop = try EventLoop(clock: ManualClock(), threadCPU: { cpu })
        let fd = eventfd(1, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        defer { close(fd) }
        var costs: [Int64] = [20_000_000, 500_000, 3_000_000]
        let handler = RecordingHandler()
        handler.onEvent = { _ in
            let cost = costs.removeFirst()
            cpu += cost / 2
            loop.atEndOfTurn(.commit) { cpu += cost - cost / 2 }
        }
        let registration = try loop.register(fd: fd, interest: .readable, handler: handler)
        defer { loop.unregister(registration) }
        loop.runOnce(maxWait: .zero)
        #expect(loop.turnCPU.turns == 0, "the first turn has no start to measure from")
        costs = [20_000_000, 500_000, 3_000_000]
        for _ in 0..<3 { loop.runOnce(maxWait: .zero) }
        #expect(loop.turnCPU.turns == 3)
        #expect(loop.turnCPU.counts == [1, 1, 0, 1, 0, 0, 0])
        #expect(loop.turnCPU.longestMicros == 20_000)
        #expect(loop.turnCPU.sumMicros == 23_500)
    }

    /// Two descriptors are ready in the same batch. The first handler closes the second
    /// descriptor and a new one takes its number; the old event must not reach the new owner.
    /// The number is taken over with dup2, which closes and reuses it in one step, so tests
    /// running in parallel cannot grab it in between.
    @Test func staleEventForAClosedAndReusedDescriptorIsNotDelivered() throws {
        let loop = try EventLoop()
        let first = eventfd(1, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        let second = eventfd(1, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        let firstHandler = RecordingHandler()
        let secondHandler = RecordingHandler()
        let newcomer = RecordingHandler()
        var reused: Int32 = -1
        var newRegistration: IORegistration?
        let secondRegistration = try loop.register(fd: second, interest: .readable, handler: secondHandler)
        let firstRegistration = try loop.register(fd: first, interest: .readable, handler: firstHandler)
        // Whichever comes first in the batch replaces the other with a fresh, not readable
        // eventfd under the same number.
        let takeOver: (Int32, IORegistration) -> Void = { victim, registration in
            loop.unregister(registration)
            let fresh = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
            dup2(fresh, victim)
            close(fresh)
            reused = victim
            newRegistration = try? loop.register(fd: victim, interest: .readable, handler: newcomer)
        }
        firstHandler.onEvent = { _ in if reused < 0 { takeOver(second, secondRegistration) } }
        secondHandler.onEvent = { _ in if reused < 0 { takeOver(first, firstRegistration) } }
        loop.runOnce(maxWait: .zero)
        #expect(firstHandler.calls.count + secondHandler.calls.count == 1)
        #expect(reused == first || reused == second)
        #expect(newRegistration != nil)
        #expect(newcomer.calls.isEmpty)
        if let newRegistration { loop.unregister(newRegistration) }
        close(first)
        close(second)
    }

    /// A turn: its events, then the work they queued (a write turn's COMMIT), then each due
    /// timer followed by the work that timer queued, so no timer runs inside an open turn.
    @Test func queuedWorkOfTheEventsRunsBeforeTheDueTimersAndEachTimersWorkBeforeTheNext() throws {
        let clock = ManualClock()
        let loop = try EventLoop(clock: clock)
        var order: [String] = []
        let first = loop.makeTimer {
            order.append("timer 1")
            loop.runSoon { order.append("work of timer 1") }
        }
        let second = loop.makeTimer { order.append("timer 2") }
        loop.reschedule(first, at: clock.now)
        loop.reschedule(second, at: clock.now + TimeSpan(nanoseconds: 1))
        clock.advance(by: .milliseconds(1))
        let fd = eventfd(1, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        defer { close(fd) }
        let handler = RecordingHandler()
        handler.onEvent = { _ in
            order.append("event")
            loop.runSoon { order.append("work of the event") }
        }
        let registration = try loop.register(fd: fd, interest: .readable, handler: handler)
        loop.runOnce(maxWait: .zero)
        #expect(order == ["event", "work of the event", "timer 1", "work of timer 1", "timer 2"])
        loop.unregister(registration)
    }

    /// The end of a turn runs phase by phase in `TurnPhase`'s order, whatever order the work
    /// was queued in, and `runSoon` work comes after the phases.
    @Test func theEndOfATurnRunsItsPhasesInOrderWhateverTheOrderTheyWereQueuedIn() throws {
        let loop = try EventLoop(clock: ManualClock())
        var order: [TurnPhase] = []
        loop.runSoon { order.append(.later) }
        for phase in TurnPhase.allCases.reversed() where phase != .later {
            loop.atEndOfTurn(phase) { order.append(phase) }
        }
        loop.runOnce(maxWait: .zero)
        #expect(order == TurnPhase.allCases)
    }

    /// A phase's work that queues work for an earlier phase (a wake-up that reads opens a read
    /// snapshot; a flush that finds a commit to make) has it run before any later phase.
    @Test func workQueuedForAnEarlierPhaseRunsBeforeTheLaterPhases() throws {
        let loop = try EventLoop(clock: ManualClock())
        var order: [String] = []
        loop.atEndOfTurn(.wake) {
            order.append("wake")
            loop.atEndOfTurn(.commit) { order.append("commit queued by wake") }
            loop.atEndOfTurn(.wake) { order.append("wake queued by wake") }
        }
        loop.atEndOfTurn(.flush) {
            order.append("flush")
            loop.atEndOfTurn(.endRead) { order.append("end read queued by flush") }
        }
        loop.atEndOfTurn(.endRead) { order.append("end read") }
        loop.runOnce(maxWait: .zero)
        #expect(order == ["wake", "commit queued by wake", "wake queued by wake", "flush", "end read", "end read queued by flush"])
    }

    /// A due timer waits until every phase of the turn is done, the read snapshot's end
    /// included, and the phases its own work queued run before the next timer.
    @Test func dueTimersRunOnlyAfterEveryPhaseOfTheTurn() throws {
        let clock = ManualClock()
        let loop = try EventLoop(clock: clock)
        var order: [String] = []
        let first = loop.makeTimer {
            order.append("timer 1")
            loop.atEndOfTurn(.endRead) { order.append("end read of timer 1") }
            loop.atEndOfTurn(.commit) { order.append("commit of timer 1") }
        }
        let second = loop.makeTimer { order.append("timer 2") }
        loop.reschedule(first, at: clock.now)
        loop.reschedule(second, at: clock.now + TimeSpan(nanoseconds: 1))
        clock.advance(by: .milliseconds(1))
        loop.atEndOfTurn(.endRead) { order.append("end read") }
        loop.atEndOfTurn(.commit) { order.append("commit") }
        loop.runOnce(maxWait: .zero)
        #expect(order == ["commit", "end read", "timer 1", "commit of timer 1", "end read of timer 1", "timer 2"])
    }

    @Test func workFromAnotherThreadWakesTheLoop() throws {
        let loop = try EventLoop()
        let handle = loop.handle
        let seen = Mutex(0)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(ThreadWork {
            for _ in 0..<100 { handle.execute { seen.withLock { $0 += 1 } } }
        })
        pthread_create(&thread, nil, { raw in
            let work = Unmanaged<ThreadWork>.fromOpaque(raw!).takeRetainedValue()
            work.body()
            return nil
        }, box.toOpaque())
        let deadline = loop.clock.now + .seconds(5)
        while seen.withLock({ $0 }) < 100 && loop.clock.now < deadline {
            loop.runOnce(maxWait: .milliseconds(100))
        }
        pthread_join(thread, nil)
        #expect(seen.withLock { $0 } == 100)
    }

    @Test func runSoonWorkRunsBeforeTheLoopSleeps() throws {
        let loop = try EventLoop()
        var ran = false
        loop.runSoon { ran = true }
        // No events and no timers: without the queued work this would block for 10 s.
        loop.runOnce(maxWait: .seconds(10))
        #expect(ran)
    }

    @Test func signalsArriveAsLoopEvents() throws {
        // A child thread would inherit the mask; this test runs the loop on its own thread
        // state, so block and raise on the same thread.
        let loop = try EventLoop()
        var received: [Int32] = []
        try loop.handleSignals([SIGUSR2]) { received.append($0) }
        pthread_kill(pthread_self(), SIGUSR2)
        loop.runOnce(maxWait: .milliseconds(500))
        #expect(received == [SIGUSR2])
    }
}

final class ThreadWork: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
