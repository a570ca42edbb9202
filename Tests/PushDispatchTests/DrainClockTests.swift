import APNs
import Clock
import EventLoop
import JSON
import PushDispatch
@testable import Relaydeck
import Testing

/// A drain reads the clock once: a window or a job that comes due while a drain runs (the
/// clock moves on between its statements, as it does on a loaded machine) is after the
/// drain's "now", so a timer comes for it at once. Read anew for the next due time, the clock
/// put it before "now": neither opened nor waited for, the trailing Live Activity update (or
/// widget reload) was never sent.
@Suite struct DrainClockTests {
    /// The wall clock moves a millisecond each time it is read; its monotonic time is the
    /// harness's (the loop's timers).
    final class TickingClock: Clock {
        let base: ManualClock
        var wall: Int64

        init(_ base: ManualClock) {
            self.base = base
            wall = base.wallMillis
        }

        var now: Instant { base.now }

        var wallMillis: Int64 {
            defer { wall += 1 }
            return wall
        }
    }

    @Test func aWindowThatComesDueWhileADrainRunsIsOpenedByTheNextDrain() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil)
        var task = try await push.task(agent, status: .inProgress)
        try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                               pushToken: PushToken(PushHarness.activityToken)!)
        task = try await push.update(agent, task, TaskPatch(progress: .some(10)))
        push.settle()
        #expect(push.sender.requests.count == 1)
        // The window's trailing update is due 5 s after the first went.
        let windowStart = push.clock.wallMillis
        push.advance(seconds: 1)
        task = try await push.update(agent, task, TaskPatch(progress: .some(20)))
        push.settle()
        #expect(push.sender.requests.count == 1)
        await push.dispatcher.stop()

        // Another dispatcher, on a clock that ticks as it is read, drains two readings before
        // the window's end: the drain's reading finds the window not yet due, the readings
        // after it would find it past. (Without the drain's one reading the window is never
        // opened: this test fails.)
        let ticking = TickingClock(push.clock)
        ticking.wall = windowStart + PushPlanner.activityWindowMillis - 2
        let sender = RecordingSender()
        let dispatcher = PushDispatcher(loop: push.loop, clock: ticking,
                                        outbox: Outbox(store: push.store, clock: ticking, planner: push.planner), sender: sender)
        dispatcher.kick()
        push.settle()
        // The timer's few milliseconds on the loop's clock.
        push.clock.advance(millis: 5)
        push.settle()
        #expect(sender.requests.count == 1)
        #expect(sender.payloads.first?["aps"]?["content-state"]?["progress"] == .number(JSONNumber(20)))
        await dispatcher.stop()
    }

    @Test func aClaimsLeaseRunsFromTheClaimNotFromTheDrainsOlderReading() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.planner.onPlanned = nil
        _ = try await push.task(agent)
        let drainBegan = push.clock.wallMillis
        push.clock.advance(millis: 3_000)
        let claimed = try await push.outbox.claimDue(limit: 10, now: drainBegan)
        #expect(claimed.count == 1)
        let leasedUntil = try await push.store.reading { db in
            try await db.firstRow("SELECT leased_until FROM push_jobs", []) { try $0.int64("leased_until") }
        }
        #expect(leasedUntil == push.clock.wallMillis + Outbox.defaultLeaseMillis)
    }
}
