import APNs
import Clock
import PushDispatch
@testable import Relaydeck
import Testing
import WebPush

/// Two nodes on one outbox: node A is the harness's planner and outbox, whose dispatcher is
/// not started and whose kicks go nowhere (A died after planning, or after its claim); node B
/// is a dispatcher of its own, which no change of A's kicks. With `lookAgainMillis` B looks
/// by itself, and sends what A left: at once what A never claimed, once the lease ends what A
/// claimed. Without it B never learns of those jobs.
@Suite struct PushLookAgainTests {
    static let lease: Int64 = 10_000

    @Test func aNodeFindsAJobADeadNodeClaimedAfterItsLastDrainAndSendsItWhenTheLeaseEnds() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        let senderB = RecordingSender()
        let nodeB = PushDispatcher(loop: push.loop, clock: push.clock,
                                   outbox: Outbox(store: push.store, clock: push.clock, planner: push.planner, leaseMillis: Self.lease),
                                   sender: senderB, lookAgainMillis: Self.lease)
        nodeB.start()
        push.settle()
        // A plans the task's push, claims it for the harness's lease (longer than B's look)
        // and dies: its dispatcher drains no more.
        push.planner.onPlanned = nil
        _ = try await push.task(agent)
        #expect(try await push.outbox.claimDue(limit: 10).map(\.pushType) == ["alert"])
        push.settle()
        push.advance(seconds: Self.lease / 1000)
        #expect(senderB.requests.isEmpty)
        push.clock.advance(millis: Outbox.defaultLeaseMillis - Self.lease - 1_000)
        push.settle()
        #expect(senderB.requests.isEmpty, "B sent a job whose lease still held")
        push.advance(seconds: 1)
        #expect(senderB.requests.map(\.pushType) == ["alert"])
        #expect(try await push.outbox.jobCount() == 0)
    }

    @Test func aNodeFindsAJobAnotherNodePlannedButNeverClaimedWithinOneLook() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        let senderB = RecordingSender()
        let nodeB = PushDispatcher(loop: push.loop, clock: push.clock,
                                   outbox: Outbox(store: push.store, clock: push.clock, planner: push.planner, leaseMillis: Self.lease),
                                   sender: senderB, lookAgainMillis: Self.lease)
        nodeB.start()
        push.settle()
        // A planned and died before its drain: nothing kicks its dispatcher.
        push.planner.onPlanned = nil
        _ = try await push.task(agent)
        push.settle()
        #expect(push.sender.requests.isEmpty)
        push.clock.advance(millis: Self.lease - 1)
        push.settle()
        #expect(senderB.requests.isEmpty)
        push.clock.advance(millis: 1)
        push.settle()
        #expect(senderB.requests.map(\.pushType) == ["alert"])
    }

    @Test func withoutLookingAgainADispatcherWaitsForAKick() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.dispatcher.start()
        push.settle()
        push.planner.onPlanned = nil
        _ = try await push.task(agent)
        push.advance(seconds: 3_600)
        #expect(push.sender.requests.isEmpty)
        push.dispatcher.kick()
        push.settle()
        #expect(push.sender.requests.map(\.pushType) == ["alert"])
    }

    @Test func aWebPushNodeLooksAgainToo() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        let senderB = RecordingWebPushSender()
        let subscriptions = web.subscriptions
        let nodeB = WebPushDispatcher(loop: web.push.loop, clock: web.push.clock,
                                      outbox: WebPushOutbox(store: web.push.store, clock: web.push.clock, leaseMillis: Self.lease),
                                      sender: senderB, key: { try WebPushHarness.keptKey(subscriptions) },
                                      subject: "mailto:ops@example.org", lookAgainMillis: Self.lease)
        nodeB.start()
        web.push.settle()
        web.planner.onPlanned = nil
        web.push.planner.onPlanned = nil
        _ = try await web.push.ask(agent)
        web.push.settle()
        #expect(web.sender.requests.isEmpty && senderB.requests.isEmpty)
        web.push.clock.advance(millis: Self.lease)
        web.push.settle()
        #expect(senderB.requests.count == 1)
    }
}
