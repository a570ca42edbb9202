import Clock
import Crypto
import EventLoop
import JSON
@testable import PushDispatch
@testable import Relaydeck
import SQLite
import TestSupport
import Testing
import WebPush

/// Stands in for the push service's connection: records each request, answers with `answer`
/// at once or, while `holding`, keeps the completions.
final class RecordingWebPushSender: WebPushSending {
    private(set) var requests: [PushRequest] = []
    private(set) var authorizations: [String] = []
    var answer: (PushRequest) -> PushDelivery.Result = { _ in .answered(PushAnswer(status: 201, retryAfterSeconds: nil)) }
    var holding = false
    private(set) var held: [(PushDelivery.Result) -> Void] = []

    func send(_ request: PushRequest, authorization: String, completion: @escaping (PushDelivery.Result) -> Void) {
        requests.append(request)
        authorizations.append(authorization)
        if holding { held.append(completion) } else { completion(answer(request)) }
    }

    func release(_ result: PushDelivery.Result) {
        let waiting = held
        held = []
        for completion in waiting { completion(result) }
    }
}

/// A browser's side of one subscription: its keys, and the decryption of RFC 8291.
struct Browser {
    let key = try! P256.PrivateKey()
    let auth = SecureRandom.bytes(16)

    func open(_ body: [UInt8]) -> JSON? {
        guard body.count > 86, let sender = P256.PublicKey(uncompressed: Array(body[21..<86])),
              let shared = key.sharedSecret(with: sender) else { return nil }
        let salt = Array(body[0..<16])
        let info = Array("WebPush: info".utf8) + [0] + key.publicKey + sender.bytes
        let inputKey = HKDF.derive(salt: auth, secret: shared, info: info, length: 32)
        let prk = HKDF.extract(salt: salt, secret: inputKey)
        let contentKey = HKDF.expand(key: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        let nonce = HKDF.expand(key: prk, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12)
        guard var record = AESGCM.open(Array(body[86...]), key: contentKey, nonce: nonce),
              let delimiter = record.lastIndex(of: 0x02) else { return nil }
        record.removeSubrange(delimiter...)
        return try? JSONParser.parse(record)
    }
}

/// The Web Push side of the push harness: the planner is on the hub with the APNs one, and a
/// dispatcher sends through a recording sender.
final class WebPushHarness {
    let push: PushHarness
    let sender = RecordingWebPushSender()
    let planner: WebPushPlanner
    let outbox: WebPushOutbox
    let subscriptions: WebPushSubscriptions
    let counts = PushCounts()
    let dispatcher: WebPushDispatcher
    var browsers: [String: Browser] = [:]

    init(directory: TemporaryDirectory = TemporaryDirectory()) throws {
        push = try PushHarness(directory: directory)
        planner = WebPushPlanner(clock: push.clock)
        push.hub.planners.append(planner)
        outbox = WebPushOutbox(store: push.store, clock: push.clock)
        let subscriptions = WebPushSubscriptions(store: push.store, clock: push.clock)
        self.subscriptions = subscriptions
        dispatcher = WebPushDispatcher(loop: push.loop, clock: push.clock, outbox: outbox, sender: sender,
                                       key: { try Self.keptKey(subscriptions) }, subject: "mailto:ops@example.org",
                                       counts: counts.service("webpush", kinds: PushCounts.webPushKinds,
                                                              outcomes: WebPushDispatcher.outcomes))
        planner.onPlanned = { [unowned dispatcher] in dispatcher.kick() }
        // Read (or made) at the start, as the daemon does, on a task on the loop: with SQLite
        // it has ended when `startTask` returns.
        var read: Result<P256.PrivateKey, any Error>?
        push.loop.startTask {
            do { read = .success(try await subscriptions.vapidKey()) } catch { read = .failure(error) }
        }
        _ = try #require(read).get()
    }

    /// The key the dispatcher signs with: the one read at the start. The dispatcher signs on
    /// the loop's synchronous path and cannot await it.
    static func keptKey(_ subscriptions: WebPushSubscriptions) throws -> P256.PrivateKey {
        guard let key = subscriptions.keptVAPIDKey else { throw NoKeyYet() }
        return key
    }

    struct NoKeyYet: Error {}

    @discardableResult
    func subscribe(_ accountID: String, id: String = "wps_laptop", endpoint: String = "https://push.example.org/send/abc") async throws -> Browser {
        let browser = Browser()
        browsers[id] = browser
        _ = try await subscriptions.put(accountID: accountID, id: id, .init(
            endpoint: endpoint, p256dh: browser.key.publicKey, auth: browser.auth, label: "Firefox", expirationTime: nil))
        return browser
    }

    func payloads(_ id: String = "wps_laptop") -> [JSON] {
        sender.requests.compactMap { browsers[id]?.open($0.body) }
    }
}

@Suite struct WebPushDispatcherTests {
    @Test func aQuestionGoesEncryptedWithHighUrgencyItsIDAsTopicAndTTLUntilItExpires() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        let question = try await web.push.ask(agent)
        web.push.settle()
        let request = try #require(web.sender.requests.first)
        #expect(web.sender.requests.count == 1)
        #expect(request.urgency == .high)
        #expect(request.topic == PushRequest.topic(for: question.id))
        #expect(request.ttl == 3600)
        #expect(request.endpoint.origin == "https://push.example.org")
        #expect(web.sender.authorizations[0].hasPrefix("vapid t="))
        let payload = try #require(web.payloads().first)
        #expect(payload["event"] == "question.created")
        #expect(payload["title"] == "Claude Code: Question")
        #expect(payload["body"] == "Deploy to production now?")
        #expect(payload["tag"] == .string(question.id))
        #expect(payload["url"] == .string("/app/#/questions/" + question.id))
        #expect(payload["kind"] == "confirm")
        #expect(payload["options"] == ["Yes", "No"])
        #expect(payload["question_id"] == .string(question.id))
        #expect(try await web.outbox.jobCount() == 0)
        #expect(web.counts.samples == [PushCounts.Sample(service: "webpush", kind: "question", outcome: "sent", count: 1)])
    }

    @Test func anAnsweredQuestionSendsALowUrgencyUpdateUnderTheSameTopic() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        let question = try await web.push.ask(agent)
        _ = try await web.push.questions.answer(accountID: agent.accountID, id: question.id, "Yes")
        web.push.settle()
        #expect(web.sender.requests.map(\.urgency) == [.high, .low])
        #expect(Set(web.sender.requests.map(\.topic)) == [PushRequest.topic(for: question.id)])
        let update = try #require(web.payloads().last)
        #expect(update["event"] == "question.updated")
        #expect(update["title"] == "Claude Code: Answered")
        #expect(update["tag"] == .string(question.id))
    }

    @Test func aVisibleTaskNotificationGoesAndASilentOneSendsNothing() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        let task = try await web.push.task(agent, priority: .urgent)
        web.push.settle()
        _ = try await web.push.update(agent, task, TaskPatch(progress: .some(40)))
        _ = try await web.push.task(agent, "Quiet", notify: false)
        web.push.settle()
        #expect(web.sender.requests.count == 1)
        #expect(web.sender.requests[0].urgency == .high)
        let payload = try #require(web.payloads().first)
        #expect(payload["event"] == "task.created")
        #expect(payload["title"] == "Claude Code: New task")
        #expect(payload["url"] == .string("/app/#/task/" + task.id))
    }

    @Test func notifyUserCountsEachBrowserWithTheDevices() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.push.device(agent.accountID)
        try await web.subscribe(agent.accountID)
        try await web.subscribe(agent.accountID, id: "wps_phone", endpoint: "https://push.example.org/send/def")
        let count = try await web.push.hub.notifyUser(web.push.store, accountID: agent.accountID, keyID: agent.key.id,
                                                title: "Approve the deploy", body: "The build is ready.", taskID: nil)
        web.push.settle()
        #expect(count == 3)
        #expect(web.sender.requests.count == 2)
        #expect(web.payloads("wps_phone").first?["title"] == "Claude Code: Approve the deploy")
    }

    @Test func a410RemovesTheSubscriptionAndItsOtherMessages() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        web.sender.holding = true
        _ = try await web.push.ask(agent)
        _ = try await web.push.ask(agent, "And staging?")
        web.push.settle()
        web.sender.release(.answered(PushAnswer(status: 410, retryAfterSeconds: nil)))
        web.push.settle()
        #expect(try await web.subscriptions.list(accountID: agent.accountID).isEmpty)
        #expect(try await web.outbox.jobCount() == 0)
    }

    @Test func aSubscriptionStoredAgainWithAnotherEndpointMeanwhileStays() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        web.sender.holding = true
        _ = try await web.push.ask(agent)
        web.push.settle()
        try await web.subscribe(agent.accountID, endpoint: "https://push.example.org/send/newer")
        web.sender.release(.answered(PushAnswer(status: 404, retryAfterSeconds: nil)))
        web.push.settle()
        #expect(try await web.subscriptions.list(accountID: agent.accountID).map(\.endpoint) == ["https://push.example.org/send/newer"])
    }

    @Test func a429IsTriedAgainAfterItsRetryAfterAndNotBefore() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        web.sender.answer = { _ in .answered(PushAnswer(status: 429, retryAfterSeconds: 120)) }
        _ = try await web.push.ask(agent)
        web.push.settle()
        web.sender.answer = { _ in .answered(PushAnswer(status: 201, retryAfterSeconds: nil)) }
        web.push.advance(seconds: 119)
        #expect(web.sender.requests.count == 1)
        web.push.advance(seconds: 1)
        #expect(web.sender.requests.count == 2)
        #expect(try await web.outbox.jobCount() == 0)
        #expect(web.counts.samples.map(\.outcome) == ["sent", "rate_limited"])
    }

    @Test func aFailureWithoutRetryAfterIsTriedAgainWithin30Seconds() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        web.sender.answer = { _ in .answered(PushAnswer(status: 503, retryAfterSeconds: nil)) }
        _ = try await web.push.task(agent)
        web.push.settle()
        web.sender.answer = { _ in .failed("connection refused") }
        web.push.advance(seconds: 30)
        #expect(web.sender.requests.count == 2)
        #expect(try await web.outbox.jobCount() == 1)
    }

    @Test func retriesStopWhenTheMessageExpires() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        web.sender.answer = { _ in .answered(PushAnswer(status: 500, retryAfterSeconds: nil)) }
        _ = try await web.push.ask(agent)
        for _ in 0..<30 { web.push.advance(seconds: 300) }
        #expect(try await web.outbox.jobCount() == 0)
        let sent = web.sender.requests.count
        web.push.advance(seconds: 3600)
        #expect(web.sender.requests.count == sent)
        #expect(sent > 1 && sent < 30)
    }

    @Test func aChangeThatRollsBackSendsNothing() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        struct Abandon: Error {}
        await #expect(throws: Abandon.self) {
            try await web.push.store.writing { _ in
                _ = try await web.push.ask(agent)
                throw Abandon()
            }
        }
        web.push.settle()
        #expect(web.sender.requests.isEmpty)
        #expect(try await web.outbox.jobCount() == 0)
    }

    @Test func whatWasPendingAtTheStopGoesAfterARestart() async throws {
        let directory = TemporaryDirectory()
        var accountID = ""
        do {
            let web = try WebPushHarness(directory: directory)
            let agent = try await web.push.agent()
            accountID = agent.accountID
            try await web.subscribe(agent.accountID)
            web.sender.holding = true
            _ = try await web.push.ask(agent)
            web.push.settle()
            await web.dispatcher.stop()
            web.sender.release(.answered(PushAnswer(status: 201, retryAfterSeconds: nil)))
            #expect(try await web.outbox.jobCount() == 1)
        }
        let again = try WebPushHarness(directory: directory)
        again.dispatcher.kick()
        again.push.settle()
        #expect(again.sender.requests.count == 1)
        #expect(try await again.outbox.jobCount() == 0)
        #expect(!accountID.isEmpty)
    }

    @Test func aTestNotificationGoesToThatSubscriptionOnly() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent()
        try await web.subscribe(agent.accountID)
        try await web.subscribe(agent.accountID, id: "wps_phone", endpoint: "https://push.example.org/send/def")
        try await web.planner.test(web.push.store, accountID: agent.accountID, subscriptionID: "wps_phone")
        web.push.settle()
        #expect(web.sender.requests.count == 1)
        #expect(web.payloads("wps_phone").first?["event"] == "test")
        await #expect(throws: DomainError.self) {
            try await web.planner.test(web.push.store, accountID: agent.accountID, subscriptionID: "wps_nobody")
        }
    }

    @Test func aPayloadOfManyByteTextsStaysUnder3000Bytes() async throws {
        let web = try WebPushHarness()
        let agent = try await web.push.agent(label: String(repeating: "🦊", count: 40))
        try await web.subscribe(agent.accountID)
        _ = try await web.push.hub.notifyUser(web.push.store, accountID: agent.accountID, keyID: agent.key.id,
                                        title: String(repeating: "🦊", count: 100), body: String(repeating: "\"", count: 1000) + String(repeating: "🦊", count: 1000),
                                        taskID: nil)
        web.push.settle()
        let request = try #require(web.sender.requests.first)
        #expect(request.body.count <= WebPushMessage.headerSize + WebPushPayload.limit + 256 + 17)
        let payload = try #require(web.payloads().first)
        #expect(payload["event"] == "message")
        if case .string(let body)? = payload["body"] { #expect(body.hasSuffix("…")) } else { Issue.record("no body") }
    }
}
