import APNs
import Clock
import DomainTestSupport
import EventLoop
import JSON
import PushDispatch
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// Stands in for the APNs client: records every request, and answers with `answer` at once
/// or, while `holding`, keeps the completions for the test to call.
final class RecordingSender: APNsSending {
    private(set) var requests: [APNsRequest] = []
    var answer: (APNsRequest) -> APNsResult = { _ in .delivered }
    var holding = false
    private(set) var held: [(APNsRequest, (APNsResult) -> Void)] = []

    func send(_ request: APNsRequest, completion: @escaping (APNsResult) -> Void) {
        requests.append(request)
        if holding {
            held.append((request, completion))
        } else {
            completion(answer(request))
        }
    }

    /// Answers every held push with `result`.
    func release(_ result: APNsResult = .delivered) {
        let waiting = held
        held = []
        for (_, completion) in waiting { completion(result) }
    }

    func clear() { requests = [] }

    /// The payloads as parsed JSON objects.
    var payloads: [JSON] { requests.map { (try? JSONParser.parse($0.payload)) ?? .null } }
}

/// A store in a file (so a second dispatcher can open it: a restart), the domain's services,
/// the push planner on the hub, a loop on a manual clock, and a dispatcher with a recording
/// sender.
final class PushHarness {
    let directory: TemporaryDirectory
    let path: String
    let clock = ManualClock(wallMillis: 1_760_112_300_900)
    let random = SeededRandom()
    let store: Store
    let hub = EventHub()
    let loop: EventLoop
    let planner: PushPlanner
    let sender = RecordingSender()
    /// What the dispatcher counted (`/metrics`).
    let counts = PushCounts()
    let dispatcher: PushDispatcher
    let outbox: Outbox
    let accounts: Accounts
    let keys: Keys
    let inbox: Inbox
    let tasks: Tasks
    let questions: Questions
    let devices: Devices
    let liveActivities: LiveActivities

    static let settings = PushSettings(bundleID: "com.example.deck", watchBundleID: "com.example.deck.watch")

    init(directory: TemporaryDirectory = TemporaryDirectory(), settings: PushSettings = PushHarness.settings) throws {
        self.directory = directory
        path = directory.file("relaydeck.db")
        store = Store(path: path, clock: clock)
        #expect(try store.open())
        loop = try EventLoop(clock: clock)
        planner = PushPlanner(settings: settings, clock: clock)
        hub.planners = [planner]
        outbox = Outbox(store: store, clock: clock, planner: planner)
        dispatcher = PushDispatcher(loop: loop, clock: clock, outbox: outbox, sender: sender,
                                    counts: counts.service("apns", outcomes: APNsResult.outcomes))
        planner.onPlanned = { [unowned dispatcher] in dispatcher.kick() }
        accounts = Accounts(store: store, clock: clock, random: random, hub: hub)
        keys = Keys(store: store, clock: clock, random: random, hub: hub)
        inbox = Inbox(store: store, clock: clock, random: random, hub: hub)
        tasks = Tasks(store: store, clock: clock, random: random, hub: hub, inbox: inbox)
        questions = Questions(store: store, clock: clock, random: random, hub: hub, inbox: inbox)
        devices = Devices(store: store, clock: clock)
        liveActivities = LiveActivities(store: store, clock: clock)
    }

    deinit {
        store.close()
    }

    /// Runs what the loop has to do now (the drains, due timers), a few turns.
    func settle() {
        for _ in 0..<5 { loop.runOnce(maxWait: .zero) }
    }

    func advance(seconds: Int64) {
        clock.advance(millis: seconds * 1000)
        settle()
    }

    // MARK: Making things

    struct Agent {
        let accountID: String
        let key: Key
        var principal: Principal { .key(KeyUse(keyID: key.id, accountID: key.accountID, lastUsedAt: nil, lastHost: nil, scopes: .all)) }
    }

    func agent(label: String = "Claude Code") async throws -> Agent {
        let (account, _) = try await accounts.create()
        let (key, _) = try await keys.create(accountID: account.id, label: Self.checked(label, .keyLabel))
        return Agent(accountID: account.id, key: key)
    }

    static let phone = "dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b"
    static let watch = "dev_00000000-0000-4000-8000-000000000002"
    static let apnsToken = String(repeating: "a1", count: 32)
    static let startToken = String(repeating: "b2", count: 32)
    static let widgetToken = String(repeating: "c3", count: 32)
    static let activityToken = String(repeating: "d4", count: 32)

    @discardableResult
    func device(_ accountID: String, id: String = PushHarness.phone, platform: Device.Platform = .ios,
                apns: String? = PushHarness.apnsToken, start: String? = nil, widget: String? = nil) async throws -> Device {
        try await devices.register(accountID: accountID, deviceID: id, DeviceRegistration(
            platform: platform, model: Self.checked("iPhone18,1", .deviceDescription),
            osVersion: Self.checked("27.0", .deviceDescription), appVersion: Self.checked("1.0", .deviceDescription),
            environment: .production, apnsToken: apns.flatMap(PushToken.init), pushToStartToken: start.flatMap(PushToken.init),
            widgetPushToken: widget.flatMap(PushToken.init)))
    }

    func task(_ agent: Agent, _ title: String = "Add dark mode support", status: WorkTask.Status? = nil,
              priority: WorkTask.Priority? = nil, notify: Bool? = nil) async throws -> WorkTask {
        try await tasks.create(agent.principal, keyID: nil, NewTask(title: Self.checked(title, .taskTitle), status: status,
                                                             priority: priority, notify: notify), host: nil)
    }

    func update(_ agent: Agent, _ task: WorkTask, _ patch: TaskPatch) async throws -> WorkTask {
        try await tasks.update(agent.principal, taskID: task.id, patch)
    }

    func ask(_ agent: Agent, _ prompt: String = "Deploy to production now?", taskID: String? = nil) async throws -> Question {
        try await questions.ask(accountID: agent.accountID, keyID: agent.key.id, Questions.Draft(
            prompt: Self.checked(prompt, .questionPrompt), kind: .confirm, options: [], taskID: taskID, expiresIn: 3600))
    }

    func rowCount(_ table: String, where condition: String = "1") throws -> Int {
        try store.read { db in
            let statement = try db.prepare("SELECT count(*) FROM \(table) WHERE \(condition)")
            _ = try statement.step()
            return statement.int(0)
        }
    }

    static func checked(_ text: String, _ rule: TextRule) -> CheckedText {
        switch rule.check(text) {
        case .success(let checked): return checked
        case .failure(let problem): fatalError("not a valid text in a test: \(problem.message)")
        }
    }
}

/// The JSON text `payload` parses to, for comparing with the contract's examples.
func json(_ text: String) -> JSON {
    (try? JSONParser.parse(Array(text.utf8))) ?? .null
}
