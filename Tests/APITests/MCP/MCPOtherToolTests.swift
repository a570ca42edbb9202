@testable import API
import Clock
import JSON
import Relaydeck
import Testing

/// `notify_user`, the question tools without a wait, and the agent tools.
@Suite struct MCPOtherToolTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        agent = try MCPAgent()
    }

    @Test func notifyUserSendsNothingWithoutPushAndHasItsHourlyLimit() throws {
        for _ in 0..<30 {
            let sent = try client.call("notify_user", #"{"title": "Deploy", "body": "Done."}"#)
            #expect(sent["structuredContent"]?.description == #"{"sent":false,"devices":0}"#)
        }
        let over = try client.call("notify_user", #"{"title": "Deploy", "body": "Done."}"#)
        #expect(over["isError"] == .bool(true))
        #expect(over["_meta"]?["relaydeck/code"]?.stringValue == "rate_limited")
        let invalid = try client.call("notify_user", #"{"title": "", "task_id": "tsk_x"}"#)
        #expect(MCPClient.text(invalid).contains("body: Required."))
    }

    @Test func notifyUserWithPushOnCountsTheDevicesWithAnAPNsTokenAndQueuesOnePushEach() async throws {
        let planner = PushPlanner(settings: PushSettings(bundleID: "com.example.deck"), clock: api.clock)
        api.services.hub.planners = [planner]
        let outbox = Outbox(store: api.services.store, clock: api.clock, planner: planner)
        let none = try client.call("notify_user", #"{"title": "Deploy", "body": "Done."}"#)
        #expect(none["structuredContent"]?.description == #"{"sent":false,"devices":0}"#)
        let device = #"{"platform": "ios", "model": "iPhone18,1", "os_version": "27.0", "app_version": "1.0", "#
            + #""apns_environment": "production", "apns_token": "a1b2a1b2a1b2a1b2a1b2a1b2a1b2a1b2"}"#
        #expect(try api.send("PUT", "/v1/devices/dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", [bearer(token)], body: device).status == 200)
        let sent = try client.call("notify_user", #"{"title": "Deploy", "body": "Done."}"#)
        #expect(sent["structuredContent"]?.description == #"{"sent":true,"devices":1}"#)
        #expect(MCPClient.text(sent).hasPrefix("Sent to 1 device."))
        #expect(try await outbox.jobCount() == 1)
    }

    @Test func askUserWithoutAWaitReturnsThePendingQuestion() throws {
        let asked = try client.call("ask_user", #"{"prompt": "Deploy now?", "wait_seconds": 0}"#)
        let question = try #require(asked["structuredContent"])
        #expect(question["status"]?.stringValue == "pending")
        #expect(question["options"]?.description == #"["Yes","No"]"#)
        #expect(MCPClient.text(asked).contains("Do not guess the answer."))
        let id = try #require(question["id"]?.stringValue)
        #expect(try api.send("POST", "/v1/questions/\(id)/answer", [bearer(token)], body: #"{"answer": "Yes"}"#).status == 200)
        let answered = try client.call("get_answer", #"{"question_id": "\#(id)"}"#)
        #expect(answered["structuredContent"]?["answer"]?.stringValue == "Yes")
        #expect(MCPClient.text(answered).hasPrefix("Question \(id) is answered: \"Yes\"."))
        let choice = try client.call("ask_user", #"{"prompt": "Which?", "kind": "choice", "wait_seconds": 0}"#)
        #expect(MCPClient.text(choice).contains("options: Required."))
        let unknown = try client.call("get_answer", #"{"question_id": "qst_x", "wait_seconds": 0}"#)
        #expect(MCPClient.text(unknown).hasPrefix("Error not_found: Question not found. Pass the id that ask_user returned.\nInbox: 1 unread."))
    }

    @Test func sendMessageAndListAgents() throws {
        let other = try api.createKey(token: token, label: "Codex")
        let sent = try client.call("send_message", #"{"to": "Codex", "text": " Ready. "}"#)
        #expect(sent["structuredContent"]?["text"]?.stringValue == "Ready.")
        #expect(sent["structuredContent"]?["from"]?["key_id"]?.stringValue == key.id)
        let toSelf = try client.call("send_message", #"{"to": "\#(key.id)", "text": "x"}"#)
        #expect(toSelf["_meta"]?["relaydeck/code"]?.stringValue == "not_found")
        let agents = try client.call("list_agents")
        let listed = try #require(agents["structuredContent"]?["agents"]?.arrayValue)
        #expect(listed.map { $0["key_id"]?.stringValue } == [other.id, key.id])
        #expect(listed[1]["is_self"] == .bool(true))
        #expect(listed[1]["last_client"]?["name"]?.stringValue == "claude-code")
        #expect(MCPClient.text(agents).contains("(this agent)"))
        #expect(try client.call("list_agents", #"{"x": 1}"#)["isError"] == .bool(true))
    }

    @Test func resourcesAndPrompts() throws {
        let made = try client.call("create_task", #"{"title": "Open one"}"#)
        let id = try #require(made["structuredContent"]?["id"]?.stringValue)
        let open = try client.modern("resources/read", #""uri":"tasks://open""#, name: "tasks://open")
        let text = try #require(try open.json()["result"]?["contents"]?.arrayValue?.first?["text"]?.stringValue)
        #expect(try JSONParser.parse(Array(text.utf8))["tasks"]?.arrayValue?.first?["id"]?.stringValue == id)
        #expect(try open.json()["result"]?["cacheScope"]?.stringValue == "private")
        let one = try client.modern("resources/read", #""uri":"tasks://task/\#(id)""#, name: "tasks://task/\(id)")
        #expect(try one.json()["result"]?["contents"]?.arrayValue?.first?["uri"]?.stringValue == "tasks://task/\(id)")
        let missing = try client.modern("resources/read", #""uri":"tasks://task/tsk_x""#, name: "tasks://task/tsk_x")
        #expect(try missing.json()["error"]?["code"]?.int64Value == -32602)
        #expect(try client.modern("resources/list").json()["result"]?["resources"]?.arrayValue?.first?["uri"]?.stringValue == "tasks://open")
        #expect(try client.modern("resources/templates/list").json()["result"]?["resourceTemplates"]?.arrayValue?.first?["uriTemplate"]?.stringValue
            == "tasks://task/{task_id}")
        #expect(try client.modern("prompts/list").json()["result"]?["prompts"]?.arrayValue?.count == 2)
        let plan = try client.modern("prompts/get", #""name":"plan_work","arguments":{"goal":"Ship v2"}"#, name: "plan_work")
        #expect(try plan.json()["result"]?["messages"]?.arrayValue?.first?["content"]?["text"]?.stringValue?.hasPrefix("Goal: Ship v2") == true)
        let noGoal = try client.modern("prompts/get", #""name":"plan_work""#, name: "plan_work")
        #expect(try noGoal.json()["error"]?["code"]?.int64Value == -32602)
    }

    /// An unknown resource's URI is echoed cut, never in full (a 500 KB URI gave an answer of
    /// the same size).
    @Test func anUnknownResourceOfAHugeURIIsNotEchoedInFull() throws {
        let uri = "tasks://nothing/" + String(repeating: "u", count: 500_000)
        let refused = try client.legacy("resources/read", #"{"uri":"\#(uri)"}"#)
        #expect(try refused.json()["error"]?["code"]?.int64Value == -32602)
        #expect(refused.text.contains("Resource not found: tasks://nothing/"))
        #expect(refused.text.utf8.count < 1_000)
    }

    /// A goal is bounded as a task's description is: a bigger one is not echoed back.
    @Test func aGoalOverTheDescriptionsBytesIsRefused() throws {
        let huge = String(repeating: "g", count: 80_001)
        let refused = try client.modern("prompts/get", #""name":"plan_work","arguments":{"goal":"\#(huge)"}"#, name: "plan_work")
        #expect(try refused.json()["error"]?["code"]?.int64Value == -32602)
        #expect(refused.text.contains("goal: Must be at most 80,000 bytes of UTF-8 as sent."))
        #expect(refused.text.utf8.count < 1_000)
        let bell = try client.modern("prompts/get", #""name":"plan_work","arguments":{"goal":"a\u0007"}"#, name: "plan_work")
        #expect(try bell.json()["error"]?["code"]?.int64Value == -32602)
    }
}
