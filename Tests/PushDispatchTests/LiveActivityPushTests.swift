import APNs
import Clock
import JSON
@testable import Relaydeck
import Testing

/// `push.md#live-activity`: `start`, `update` at most once per task in 5 seconds with the
/// newest state, `end`; `push.md#widget-reload`: at most one per device in 15 seconds.
@Suite struct LiveActivityPushTests {
    private func text(_ request: APNsRequest) -> String { String(decoding: request.payload, as: UTF8.self) }

    /// Seconds of the harness's wall clock (1760112300.9 at the start).
    private func seconds(_ push: PushHarness) -> Int64 { push.clock.wallMillis / 1000 }

    @Test func anAgentStartingATaskStartsAnActivityOnDevicesWithAPushToStartToken() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil, start: PushHarness.startToken)
        let task = try await push.task(agent, status: .inProgress)
        push.settle()
        let request = try #require(push.sender.requests.first)
        #expect(push.sender.requests.count == 1)
        #expect(request.pushType == "liveactivity")
        #expect(request.topic == "com.example.deck.push-type.liveactivity")
        #expect(request.priority == 10)
        #expect(request.deviceToken == PushHarness.startToken)
        let now = seconds(push)
        #expect(text(request) == """
            {"aps":{"timestamp":\(now),"event":"start","content-state":{"title":"Add dark mode support",\
            "status":"in_progress","progress":null,"note":null,"updatedAt":1760112300.9,"question":null},\
            "stale-date":\(now + 1800),"relevance-score":75,"attributes-type":"TaskActivityAttributes",\
            "attributes":{"taskID":"\(task.id)","keyLabel":"Claude Code"},\
            "alert":{"title":"Claude Code","body":"Add dark mode support"}}}
            """)
    }

    /// The title's byte bound (800) keeps a start within APNs' 4 KB although it carries the
    /// title twice: it goes whole (`PayloadFitTests` shortens what would not fit).
    @Test func aStartWithATitleAtItsByteBoundGoesWholeWithinAPNsLimit() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil, start: PushHarness.startToken)
        // 32 family emoji of 25 bytes each: 800 bytes, the rule's most.
        let family = "👨‍👩‍👧‍👦"
        let widest = String(repeating: family, count: 32)
        _ = try await push.task(agent, widest, status: .inProgress)
        push.settle()
        let request = try #require(push.sender.requests.first)
        #expect(request.payload.count <= 4096)
        let json = try JSONParser.parse(request.payload)
        #expect(json["aps"]?["content-state"]?["title"]?.stringValue == widest)
        #expect(json["aps"]?["alert"]?["body"]?.stringValue == widest)
    }

    @Test func noStartForADeviceThatHasTheActivityOrWhenTheAccountTurnedThemOff() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil, start: PushHarness.startToken)
        let task = try await push.task(agent)
        try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                         pushToken: PushToken(PushHarness.activityToken)!)
        _ = try await push.update(agent, task, TaskPatch(status: .inProgress))
        push.settle()
        #expect(push.sender.requests.map(\.event) == ["update"])

        let other = try await push.agent()
        try await push.device(other.accountID, apns: nil, start: String(repeating: "f6", count: 32))
        _ = try await push.accounts.update(other.accountID, liveActivities: false)
        push.sender.clear()
        _ = try await push.task(other, status: .inProgress)
        push.settle()
        #expect(push.sender.requests.isEmpty)
    }

    @Test func updatesOfOneTaskGoAtMostOnceInFiveSecondsAndTheLastStateIsNeverLost() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil)
        var task = try await push.task(agent, status: .inProgress)
        try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                         pushToken: PushToken(PushHarness.activityToken)!)
        task = try await push.update(agent, task, TaskPatch(progress: .some(10)))
        push.settle()
        #expect(push.sender.requests.count == 1)
        #expect(push.sender.requests[0].deviceToken == PushHarness.activityToken)
        #expect(push.sender.payloads[0]["aps"]?["content-state"]?["progress"] == .number(JSONNumber(10)))

        for progress in [20, 30, 40] {
            push.advance(seconds: 1)
            task = try await push.update(agent, task, TaskPatch(progress: .some(progress)))
            push.settle()
        }
        #expect(push.sender.requests.count == 1)
        push.advance(seconds: 1)
        #expect(push.sender.requests.count == 1)
        push.advance(seconds: 1)
        #expect(push.sender.requests.count == 2)
        let trailing = push.sender.payloads[1]["aps"]
        #expect(trailing?["event"]?.stringValue == "update")
        #expect(trailing?["content-state"]?["progress"] == .number(JSONNumber(40)))
        #expect(trailing?["relevance-score"] == .number(JSONNumber(75)))
        push.advance(seconds: 10)
        #expect(push.sender.requests.count == 2)
        // After a quiet window the next change goes at once again.
        _ = try await push.update(agent, task, TaskPatch(progress: .some(50)))
        push.settle()
        #expect(push.sender.requests.count == 3)
        #expect(push.sender.payloads[2]["aps"]?["content-state"]?["progress"] == .number(JSONNumber(50)))
    }

    @Test func aQuestionOfTheTaskUpdatesTheActivityWithTheOldestPendingQuestion() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil)
        let task = try await push.task(agent, status: .inProgress)
        try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                         pushToken: PushToken(PushHarness.activityToken)!)
        let question = try await push.ask(agent, taskID: task.id)
        push.settle()
        let state = push.sender.payloads.last?["aps"]
        #expect(state?["relevance-score"] == .number(JSONNumber(100)))
        #expect(state?["content-state"]?["question"] == json("""
            {"id":"\(question.id)","prompt":"Deploy to production now?","kind":"confirm","options":["Yes","No"]}
            """))
    }

    @Test func aDoneTaskEndsItsActivitiesWithADismissalDateAndTheRegistrationGoes() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil)
        let task = try await push.task(agent, status: .inProgress)
        try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                         pushToken: PushToken(PushHarness.activityToken)!)
        _ = try await push.update(agent, task, TaskPatch(progress: .some(50)))
        push.advance(seconds: 1)
        let done = try await push.update(agent, task, TaskPatch(status: .done))
        push.settle()
        let now = seconds(push)
        #expect(push.sender.requests.count == 2)
        #expect(text(push.sender.requests[1]) == """
            {"aps":{"timestamp":\(now),"event":"end","content-state":{"title":"Add dark mode support","status":"done",\
            "progress":100,"note":null,"updatedAt":\(Double(done.updatedAt) / 1000),"question":null},\
            "dismissal-date":\(now + 900)}}
            """)
        #expect(try push.rowCount("live_activities") == 0)
        push.advance(seconds: 10)
        #expect(push.sender.requests.count == 2)
    }

    @Test func deletingTheTaskOrItsKeyEndsTheActivity() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil)
        let first = try await push.task(agent, status: .inProgress)
        let second = try await push.task(agent, "Second", status: .inProgress)
        for task in [first, second] {
            try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                             pushToken: PushToken(PushHarness.activityToken)!)
        }
        try await push.tasks.delete(agent.principal, taskID: first.id)
        try await push.keys.delete(accountID: agent.accountID, keyID: agent.key.id)
        push.settle()
        let ends = push.sender.payloads.map { ($0["aps"]?["event"]?.stringValue, $0["aps"]?["content-state"]?["title"]?.stringValue) }
        #expect(ends.map(\.0) == ["end", "end"])
        #expect(ends.map(\.1) == ["Add dark mode support", "Second"])
    }

    @Test func widgetReloadsGoAtMostOnceInFifteenSecondsWithOneTrailingPush() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, apns: nil, widget: PushHarness.widgetToken)
        let task = try await push.task(agent)
        push.settle()
        let request = try #require(push.sender.requests.first)
        #expect(request.pushType == "widgets")
        #expect(request.topic == "com.example.deck.push-type.widgets")
        #expect(request.priority == 5)
        #expect(request.deviceToken == PushHarness.widgetToken)
        #expect(text(request) == #"{"aps":{"content-changed":true}}"#)
        for _ in 0..<3 {
            push.advance(seconds: 2)
            _ = try await push.update(agent, task, TaskPatch(progress: .some(Int(push.clock.wallMillis % 100))))
            push.settle()
        }
        #expect(push.sender.requests.count == 1)
        push.advance(seconds: 8)
        #expect(push.sender.requests.count == 1)
        push.advance(seconds: 1)
        #expect(push.sender.requests.count == 2)
        push.advance(seconds: 30)
        #expect(push.sender.requests.count == 2)
    }
}

private extension APNsRequest {
    var event: String? { (try? JSONParser.parse(payload))?["aps"]?["event"]?.stringValue }
}

@Suite struct ServerChangePushTests {
    @Test func aTaskThatRetentionDeletesReloadsTheWidgetsButSendsNoNotification() async throws {
        let push = try PushHarness()
        let agent = try await push.agent()
        try await push.device(agent.accountID, widget: PushHarness.widgetToken)
        let task = try await push.task(agent, status: .inProgress, notify: false)
        try await push.liveActivities.register(accountID: agent.accountID, taskID: task.id, deviceID: PushHarness.phone,
                                         pushToken: PushToken(PushHarness.activityToken)!)
        _ = try await push.update(agent, task, TaskPatch(status: .cancelled))
        push.advance(seconds: 60)
        push.sender.clear()
        push.clock.advance(millis: Retention.closedTasks + 1000)
        try await Retention(store: push.store, clock: push.clock, hub: push.hub).step()
        push.settle()
        #expect(push.sender.requests.map(\.pushType) == ["widgets"])
        #expect(try push.rowCount("tasks") == 0)
    }
}
