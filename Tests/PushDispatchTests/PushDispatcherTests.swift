import APNs
import Clock
import EventLoop
import JSON
@testable import PushDispatch
import TestSupport
@testable import Relaydeck
import SQLite
import Testing

/// What the dispatcher does with APNs's answers, and that nothing pending is lost.
@Suite struct PushDispatcherTests {
    @Test func a410OrBadDeviceTokenRemovesThatTokenOfTheDevice() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, start: PushHarness.startToken, widget: PushHarness.widgetToken)
        push.sender.answer = { request in
            request.pushType == "alert" ? .refused(status: 410, reason: "Unregistered") : .refused(status: 400, reason: "BadDeviceToken")
        }
        _ = try await push.task(agent, status: .inProgress)
        push.settle()
        #expect(Set(push.sender.requests.map(\.pushType)) == ["alert", "liveactivity", "widgets"])
        let device = try await push.devices.get(accountID: agent.accountID, deviceID: PushHarness.phone)
        #expect(device.apnsToken == nil)
        #expect(device.pushToStartToken == nil)
        #expect(device.widgetPushToken == nil)
        #expect(try await push.outbox.jobCount() == 0)
        // Each refusal is counted under its kind and APNs's reason, never a token or an ID.
        #expect(push.counts.samples == [
            PushCounts.Sample(service: "apns", kind: "alert", outcome: "Unregistered", count: 1),
            PushCounts.Sample(service: "apns", kind: "liveactivity", outcome: "BadDeviceToken", count: 1),
            PushCounts.Sample(service: "apns", kind: "widgets", outcome: "BadDeviceToken", count: 1),
        ])
    }

    @Test func eachSendThatEndsIsCountedByKindAndOutcomeARetriedJobOncePerSend() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.sender.answer = { _ in .refused(status: 429, reason: "TooManyRequests") }
        _ = try await push.task(agent)
        push.settle()
        push.sender.answer = { _ in .unreachable("connection refused") }
        push.advance(seconds: 2)
        push.sender.answer = { _ in .delivered }
        push.advance(seconds: 3)
        #expect(push.sender.requests.count == 3)
        #expect(push.counts.samples == [
            PushCounts.Sample(service: "apns", kind: "alert", outcome: "sent", count: 1),
            PushCounts.Sample(service: "apns", kind: "alert", outcome: "TooManyRequests", count: 1),
            PushCounts.Sample(service: "apns", kind: "alert", outcome: "unreachable", count: 1),
        ])
    }

    @Test func aRefusedActivityTokenRemovesTheRegistration() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil)
        let task = try await push.task(agent, status: .inProgress)
        try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                         pushToken: PushToken(PushHarness.activityToken)!)
        push.sender.answer = { _ in .refused(status: 410, reason: "Unregistered") }
        _ = try await push.update(agent, task, TaskPatch(progress: .some(5)))
        push.settle()
        #expect(push.sender.requests.count == 1)
        #expect(try push.rowCount("live_activities") == 0)
    }

    @Test func aTokenReplacedMeanwhileStays() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.sender.holding = true
        _ = try await push.task(agent)
        push.settle()
        let newer = String(repeating: "0f", count: 32)
        try await push.device(agent.accountID, apns: newer)
        push.sender.release(.refused(status: 410, reason: "Unregistered"))
        push.settle()
        #expect(try await push.devices.get(accountID: agent.accountID, deviceID: PushHarness.phone).apnsToken == newer)
    }

    @Test func anAPNsTokenTakenOverByANewRegistrationLosesTheOlderOnesWaitingPushes() async throws {
        let push = try PushHarness()
        let old = try await push.agent()
        try await push.device(old.accountID)
        push.sender.answer = { _ in .unreachable("no route") }
        _ = try await push.task(old)
        push.settle()
        #expect(try await push.outbox.jobCount() == 1)
        let new = try await push.agent()
        try await push.device(new.accountID)
        #expect(try await push.outbox.jobCount() == 0)
    }

    @Test func aFailureWorthRetryingGoesAgainWithBackoffAndOtherRefusalsAreDropped() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        var answers: [APNsResult] = [.refused(status: 503, reason: "ServiceUnavailable"), .unreachable("connection refused"),
                                     .delivered]
        push.sender.answer = { _ in answers.removeFirst() }
        _ = try await push.task(agent)
        push.settle()
        #expect(push.sender.requests.count == 1)
        push.advance(seconds: 1)
        #expect(push.sender.requests.count == 2)
        push.advance(seconds: 1)
        #expect(push.sender.requests.count == 2)
        push.advance(seconds: 1)
        #expect(push.sender.requests.count == 3)
        #expect(try await push.outbox.jobCount() == 0)

        push.sender.answer = { _ in .refused(status: 400, reason: "BadCollapseId") }
        _ = try await push.task(agent, "Another")
        push.settle()
        #expect(push.sender.requests.count == 4)
        #expect(try await push.outbox.jobCount() == 0)
        #expect(try await push.devices.get(accountID: agent.accountID, deviceID: PushHarness.phone).apnsToken != nil)
    }

    @Test func aJobThatKeepsFailingIsDroppedAfterItsAttempts() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.sender.answer = { _ in .unreachable("no route") }
        _ = try await push.task(agent)
        for _ in 0..<20 { push.advance(seconds: 300) }
        #expect(push.sender.requests.count == PushDispatcher.maxAttempts)
        #expect(try await push.outbox.jobCount() == 0)
    }

    @Test func atMostMaxInFlightPushesWaitForAnAnswer() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.sender.holding = true
        for index in 0..<(PushDispatcher.maxInFlight + 8) { _ = try await push.task(agent, "Task \(index)") }
        push.settle()
        #expect(push.sender.requests.count == PushDispatcher.maxInFlight)
        #expect(push.dispatcher.inFlight == PushDispatcher.maxInFlight)
        push.sender.release()
        push.settle()
        #expect(push.sender.requests.count == PushDispatcher.maxInFlight + 8)
        push.sender.release()
        push.settle()
        #expect(try await push.outbox.jobCount() == 0)
    }

    /// The first process: three pushes handed to APNs and not answered, and a widget reload
    /// waiting in its window (due 15 s after the first reload).
    private static func leaveThreeInFlight(_ directory: TemporaryDirectory, stopping: Bool) async throws -> String {
        let first = try PushHarness(directory: directory)
        let agent = try await first.agent()
        try await first.device(agent.accountID, widget: PushHarness.widgetToken)
        first.sender.holding = true
        let task = try await first.task(agent)
        first.settle()
        _ = try await first.update(agent, task, TaskPatch(progress: .some(1)))
        first.settle()
        #expect(first.sender.requests.count == 3)
        #expect(try await first.outbox.jobCount() == 3)
        if stopping { await first.dispatcher.stop() }
        first.store.close()
        return agent.accountID
    }

    @Test func aRestartAfterAStopDeliversWhatWasPendingAtOnce() async throws {
        let directory = TemporaryDirectory()
        let agentAccount = try await Self.leaveThreeInFlight(directory, stopping: true)
        let second = try PushHarness(directory: directory)
        second.dispatcher.kick()
        second.settle()
        #expect(second.sender.requests.map(\.pushType) == ["alert", "widgets", "background"])
        #expect(try await second.outbox.jobCount() == 0)
        second.advance(seconds: 15)
        #expect(second.sender.requests.map(\.pushType) == ["alert", "widgets", "background", "widgets"])
        #expect(try await second.devices.get(accountID: agentAccount, deviceID: PushHarness.phone).widgetPushToken != nil)
    }

    /// A process that died with pushes in flight (`kill -9`): with SQLite its store has no
    /// other process, so the next one's start ends the dead one's leases and sends them.
    @Test func aRestartAfterACrashDeliversWhatWasInFlight() async throws {
        let directory = TemporaryDirectory()
        _ = try await Self.leaveThreeInFlight(directory, stopping: false)
        let second = try PushHarness(directory: directory)
        second.dispatcher.start()
        second.settle()
        #expect(second.sender.requests.map(\.pushType) == ["alert", "widgets", "background"])
        #expect(try await second.outbox.jobCount() == 0)
    }

    /// What another node sees of a claimed job (a second outbox on the store that did not
    /// start over): nothing to claim until the lease ends, then the job.
    @Test func aClaimedJobIsNoOneElsesUntilItsLeaseEnds() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.sender.holding = true
        _ = try await push.task(agent)
        push.settle()
        #expect(push.sender.requests.count == 1)
        let other = Outbox(store: push.store, clock: push.clock, planner: push.planner)
        #expect(try await other.claimDue(limit: 10).isEmpty)
        #expect(try await other.nextDue() == push.clock.wallMillis + Outbox.defaultLeaseMillis)
        push.clock.advance(millis: Outbox.defaultLeaseMillis)
        #expect(try await other.claimDue(limit: 10).map(\.pushType) == ["alert"])
    }

    @Test func theLogNamesTheFailureButNeverTheToken() throws {
        let fields = PushDispatcher.fields(PushJob(accountID: "acc", deviceID: PushHarness.phone, tokenKind: .apns,
                                                   environment: .production, token: PushHarness.apnsToken, pushType: "alert",
                                                   topic: "t", priority: 10, payload: []),
                                           status: 400, reason: "BadCollapseId")
        #expect(fields.contains { $0.value == "400" })
        #expect(fields.contains { $0.value == "BadCollapseId" })
        #expect(!fields.contains { $0.value.contains(PushHarness.apnsToken) })
    }
}

@Suite struct PushDispatcherStopTests {
    @Test func answersAfterTheStopLeaveTheJobsForTheNextStart() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.sender.holding = true
        _ = try await push.task(agent)
        push.settle()
        await push.dispatcher.stop()
        push.sender.release(.unreachable("the APNs client is shut down"))
        _ = try await push.task(agent, "After the stop")
        push.settle()
        #expect(push.sender.requests.count == 1)
        #expect(try await push.outbox.jobCount() == 2)
    }
}

/// Issue 19's hole, on the push side: the dispatcher's drain is queued for the turn's `pushes`
/// phase, so a drain an earlier event of the turn queued (before a write turn opened) still
/// runs after that turn's COMMIT. When the COMMIT fails, the drain finds no job and sends
/// nothing; before, it ran first, inside the open transaction, and pushed a task that was
/// then rolled back.
@Suite struct PushDrainTurnTests {
    @Test func aDrainQueuedBeforeAWriteTurnSendsNothingForAChangeWhoseCommitFails() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        push.settle()
        // An earlier event of this turn kicked the dispatcher (an APNs answer, a timer's job).
        push.dispatcher.kick()
        // Then a write turn opens, as group commit opens one, with its COMMIT queued.
        let work = try #require(try push.store.tryBeginWork())
        var commitError: (any Error)?
        push.loop.atEndOfTurn(.commit) {
            // As `commitTurn`: a failed COMMIT rolls back and publishes nothing.
            do { try work.commit() } catch { commitError = error }
        }
        // The turn's writes: a task that plans a push, and a row that makes the COMMIT fail
        // (a key of no account, its foreign key checked only at COMMIT).
        let task = try await push.task(agent)
        try push.store.write { db in
            try db.execute("PRAGMA defer_foreign_keys = ON")
            try db.execute("""
                INSERT INTO keys (id, account_id, label, secret_hash, prefix, last4, created_at)
                VALUES ('key_orphan', 'acc_nobody', 'x', x'00', 'rd_', 'abcd', 0)
                """)
        }
        push.settle()
        #expect(commitError != nil, "the COMMIT did not fail")
        #expect(push.sender.requests.isEmpty, "a push went out for a task that was rolled back")
        #expect(try await push.outbox.jobCount() == 0)
        let kept = try push.store.read { db in
            let statement = try db.statement("SELECT count(*) FROM tasks WHERE id = ?")
            defer { statement.reset() }
            try statement.bind(task.id, at: 1)
            _ = try statement.step()
            return statement.int64(0)
        }
        #expect(kept == 0)
    }
}
