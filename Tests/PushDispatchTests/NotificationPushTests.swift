import APNs
import Clock
import JSON
import Relaydeck
import Testing

/// `push.md#who-gets-which-notification` and the payloads of task, message and question
/// notifications, as the dispatcher hands them to APNs.
@Suite struct NotificationPushTests {
    private func text(_ request: APNsRequest) -> String { String(decoding: request.payload, as: UTF8.self) }

    @Test func anAgentsNewTaskIsAVisibleNotificationWithTheContractsPayloadAndHeaders() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        let task = try await push.task(agent)
        push.settle()
        #expect(push.sender.requests.count == 1)
        let request = try #require(push.sender.requests.first)
        #expect(request.environment == .production)
        #expect(request.deviceToken == PushHarness.apnsToken)
        #expect(request.pushType == "alert")
        #expect(request.topic == "com.example.deck")
        #expect(request.priority == 10)
        #expect(request.collapseID == task.id)
        #expect(request.expiration == nil)
        #expect(text(request) == """
            {"aps":{"alert":{"title":"Claude Code","subtitle":"New task","body":"Add dark mode support"},"sound":"default",\
            "thread-id":"\(agent.key.id)","category":"TASK","interruption-level":"active"},"event":"task.created",\
            "task_id":"\(task.id)","key_id":"\(agent.key.id)"}
            """)
        #expect(try await push.outbox.jobCount() == 0)
    }

    @Test func theSubtitleSaysWhatTheStatusBecameAndAnUrgentTaskIsTimeSensitive() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        let task = try await push.task(agent, priority: .urgent)
        var current = try await push.update(agent, task, TaskPatch(status: .inProgress))
        current = try await push.update(agent, current, TaskPatch(title: PushHarness.checked("Renamed", .taskTitle)))
        current = try await push.update(agent, current, TaskPatch(status: .done))
        try await push.tasks.delete(agent.principal, taskID: task.id)
        push.settle()
        let alerts = push.sender.payloads.compactMap { $0["aps"]?["alert"]?["subtitle"]?.stringValue }
        #expect(alerts == ["New task", "Task started", "Task updated", "Task done", "Task deleted"])
        let levels = push.sender.payloads.compactMap { $0["aps"]?["interruption-level"]?.stringValue }
        #expect(levels == Array(repeating: "time-sensitive", count: 5))
        #expect(push.sender.payloads.last?["event"]?.stringValue == "task.deleted")
    }

    @Test func aProgressTickANotifyFalseTaskAndTheAppsChangesAreSilent() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        let task = try await push.task(agent)
        push.settle()
        push.sender.clear()
        _ = try await push.update(agent, task, TaskPatch(progress: .some(40), statusNote: .some(PushHarness.checked("Half", .statusNote))))
        let quiet = try await push.task(agent, "Quiet", notify: false)
        _ = try await push.tasks.update(.account(accountID: agent.accountID), taskID: task.id, TaskPatch(title: PushHarness.checked("By the app", .taskTitle)))
        push.settle()
        #expect(push.sender.requests.count == 3)
        for request in push.sender.requests {
            #expect(request.pushType == "background")
            #expect(request.priority == 5)
            #expect(request.collapseID == nil)
        }
        #expect(text(push.sender.requests[0]) == """
            {"aps":{"content-available":1},"event":"task.updated","task_id":"\(task.id)","key_id":"\(agent.key.id)"}
            """)
        #expect(text(push.sender.requests[1]).contains(#""event":"task.created","task_id":"\#(quiet.id)""#))
    }

    @Test func aNewQuestionIsTimeSensitiveWithItsOptionsAndExpiryAndItsStatusChangeIsSilentWithTheSameCollapseID() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        let question = try await push.ask(agent)
        push.settle()
        let request = try #require(push.sender.requests.first)
        #expect(request.pushType == "alert")
        #expect(request.collapseID == question.id)
        #expect(request.expiration == question.expiresAt / 1000)
        #expect(text(request) == """
            {"aps":{"alert":{"title":"Claude Code","subtitle":"Question","body":"Deploy to production now?"},"sound":"default",\
            "thread-id":"\(agent.key.id)","category":"QUESTION_CONFIRM","interruption-level":"time-sensitive",\
            "mutable-content":1},"event":"question.created","question_id":"\(question.id)","kind":"confirm",\
            "options":["Yes","No"],"task_id":null,"key_id":"\(agent.key.id)"}
            """)
        push.sender.clear()
        _ = try await push.questions.answer(accountID: agent.accountID, id: question.id, "Yes")
        push.settle()
        let update = try #require(push.sender.requests.first)
        #expect(push.sender.requests.count == 1)
        #expect(update.pushType == "background")
        #expect(update.priority == 5)
        #expect(update.collapseID == question.id)
        #expect(text(update) == """
            {"aps":{"content-available":1},"event":"question.updated","question_id":"\(question.id)","key_id":"\(agent.key.id)"}
            """)
    }

    @Test func aMessageGoesToEachDeviceWithAnAPNsTokenAndCountsThem() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        try await push.device(agent.accountID, id: PushHarness.watch, platform: .watchos, apns: String(repeating: "e5", count: 32))
        let task = try await push.task(agent, priority: .urgent)
        push.settle()
        push.sender.clear()
        let count = try await push.hub.notifyUser(push.store, accountID: agent.accountID, keyID: agent.key.id,
                                                title: "Approve the deploy", body: "The build is ready.", taskID: task.id)
        push.settle()
        #expect(count == 2)
        #expect(push.sender.requests.map(\.topic) == ["com.example.deck", "com.example.deck.watch"])
        #expect(push.sender.requests.allSatisfy { $0.collapseID == nil && $0.pushType == "alert" })
        #expect(text(push.sender.requests[0]) == """
            {"aps":{"alert":{"title":"Claude Code","subtitle":"Approve the deploy","body":"The build is ready."},\
            "sound":"default","thread-id":"\(agent.key.id)","category":"MESSAGE","interruption-level":"time-sensitive"},\
            "event":"message","key_id":"\(agent.key.id)","task_id":"\(task.id)"}
            """)
    }

    @Test func aMessageFewInCharactersButLargeInBytesIsShortenedToFitAPNsLimit() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        // Family emoji of 25 bytes each, as many as the rules' byte bounds take (400 and 4,000).
        let family = "👨‍👩‍👧‍👦"
        let title = String(repeating: family, count: 16)
        let body = String(repeating: family, count: 160)
        _ = try await push.hub.notifyUser(push.store, accountID: agent.accountID, keyID: agent.key.id,
                                        title: title, body: body, taskID: nil)
        push.settle()
        let request = try #require(push.sender.requests.first)
        #expect(request.payload.count <= 4096)
        let json = try JSONParser.parse(request.payload)
        let alert = json["aps"]?["alert"]
        let sentBody = try #require(alert?["body"]?.stringValue)
        let sentTitle = try #require(alert?["subtitle"]?.stringValue)
        // The body gave way first, by whole characters with an ellipsis; the title was kept.
        #expect(sentTitle == title)
        #expect(sentBody.hasSuffix("…") && sentBody.dropLast().allSatisfy { $0 == Character(family) })
        #expect(sentBody.count > 1)
    }

    @Test func aWatchGetsNothingWithoutAWatchBundleIDButStillCounts() async throws {
        let push = try PushHarness(settings: PushSettings(bundleID: "com.example.deck"))
        let agent = try await push.agent()
        try await push.device(agent.accountID, id: PushHarness.watch, platform: .watchos)
        let count = try await push.hub.notifyUser(push.store, accountID: agent.accountID, keyID: agent.key.id,
                                                title: "Hello", body: "There", taskID: nil)
        push.settle()
        #expect(count == 1)
        #expect(push.sender.requests.isEmpty)
    }

    @Test func noDeviceWithATokenMeansNoMessage() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil)
        let count = try await push.hub.notifyUser(push.store, accountID: agent.accountID, keyID: agent.key.id,
                                                title: "Hello", body: "There", taskID: nil)
        #expect(count == 0)
        #expect(try await push.outbox.jobCount() == 0)
    }

    @Test func aRequestWhoseTransactionRollsBackLeavesNoPushAndOneThatCommitsSendsAfterIt() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        // As the API runs a writing request: the turn's unit of work around the service's savepoint.
        let undone = try #require(try push.store.tryBeginWork())
        _ = try await push.task(agent)
        #expect(try push.rowCount("push_jobs") == 1)
        undone.rollBack()
        push.settle()
        #expect(try await push.outbox.jobCount() == 0)
        #expect(push.sender.requests.isEmpty)

        let kept = try #require(try push.store.tryBeginWork())
        _ = try await push.task(agent)
        // Nothing leaves while the request runs; the drain waits for the loop.
        #expect(push.sender.requests.isEmpty)
        try kept.commit()
        push.settle()
        #expect(push.sender.requests.count == 1)
    }

    @Test func aChangeThatRollsBackLeavesNoPush() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID)
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await push.store.writing { db in
                _ = try await push.planner.message(db, accountID: agent.accountID, keyID: agent.key.id, title: "t", body: "b", taskID: nil)
                throw Boom()
            }
        }
        push.settle()
        #expect(try await push.outbox.jobCount() == 0)
        #expect(push.sender.requests.isEmpty)
    }
}
