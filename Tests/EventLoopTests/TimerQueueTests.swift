import Testing
import TestSupport
@testable import EventLoop

@Suite struct TimerQueueTests {
    func at(_ ms: Int64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }

    func drain(_ queue: inout TimerQueue, until now: Instant) -> [Int] {
        var fired: [Int] = []
        while let timer = queue.popExpired(now: now) {
            fired.append(Int(timer.deadline.nanoseconds / 1_000_000))
        }
        return fired
    }

    @Test func firesInDeadlineOrderAndOnlyWhenDue() {
        var queue = TimerQueue()
        for ms: Int64 in [50, 10, 40, 20, 30] {
            queue.schedule(LoopTimer(deadline: at(ms), callback: {}), at: at(ms))
        }
        #expect(queue.nextDeadline == at(10))
        #expect(drain(&queue, until: at(25)) == [10, 20])
        #expect(drain(&queue, until: at(100)) == [30, 40, 50])
        #expect(queue.count == 0)
    }

    @Test func equalDeadlinesFireInSchedulingOrder() {
        var queue = TimerQueue()
        var order: [Int] = []
        let timers = (0..<5).map { i in LoopTimer(deadline: at(7), callback: { order.append(i) }) }
        for timer in timers { queue.schedule(timer, at: at(7)) }
        while let timer = queue.popExpired(now: at(7)) { timer.callback() }
        #expect(order == [0, 1, 2, 3, 4])
    }

    @Test func cancelledTimerNeverFiresAndCancelTwiceIsHarmless() {
        var queue = TimerQueue()
        let a = LoopTimer(deadline: at(1), callback: {})
        let b = LoopTimer(deadline: at(2), callback: {})
        queue.schedule(a, at: at(1))
        queue.schedule(b, at: at(2))
        queue.remove(a)
        queue.remove(a)
        #expect(!a.isScheduled)
        #expect(drain(&queue, until: at(10)) == [2])
    }

    @Test func reschedulingMovesATimerInsteadOfAddingOne() {
        var queue = TimerQueue()
        let timer = LoopTimer(deadline: at(5), callback: {})
        queue.schedule(timer, at: at(5))
        queue.schedule(timer, at: at(50))
        #expect(queue.count == 1)
        #expect(drain(&queue, until: at(10)).isEmpty)
        #expect(drain(&queue, until: at(50)) == [50])
    }

    @Test func manyThousandsOfTimersAddCancelAndFireCorrectly() {
        var queue = TimerQueue()
        var generator = SplitMix64(seed: 42)
        var timers: [LoopTimer] = []
        for _ in 0..<20_000 {
            let ms = Int64(generator.next() % 100_000)
            let timer = LoopTimer(deadline: at(ms), callback: {})
            queue.schedule(timer, at: at(ms))
            timers.append(timer)
        }
        // Cancel every third one, move every fifth.
        var expected: [Int64] = []
        for (i, timer) in timers.enumerated() {
            if i % 3 == 0 {
                queue.remove(timer)
            } else if i % 5 == 0 {
                let ms = Int64(generator.next() % 100_000)
                queue.schedule(timer, at: at(ms))
                expected.append(ms)
            } else {
                expected.append(timer.deadline.nanoseconds / 1_000_000)
            }
        }
        let fired = drain(&queue, until: at(1_000_000)).map(Int64.init)
        #expect(fired == expected.sorted())
    }
}
