#if canImport(Glibc)
import Glibc
#endif
import Clock
import Crypto
import EventLoop
import JSON
import TLS
import Testing
import TestSupport
@testable import WebPush

/// Tests/e2e/webpush_mock.py run as a program: its origin, its CA file and the subscriptions
/// it made (as browsers make them), and the pushes it recorded.
final class MockPushService {
    let program: MockProgram
    let origin: String
    let caFile: String
    let subscriptions: [String: (endpoint: String, p256dh: [UInt8], auth: [UInt8])]

    init(_ subscriptions: [String]) throws {
        program = try MockProgram("webpush_mock.py", subscriptions.flatMap { ["--subscription", $0] })
        let info = try JSONParser.parse(program.ready)
        guard let origin = info["origin"]?.stringValue, let caFile = info["ca_file"]?.stringValue,
              let made = info["subscriptions"]?.objectValue else {
            throw ChildProcessError(message: "the mock's ready file lacks origin, ca_file or subscriptions")
        }
        self.origin = origin
        self.caFile = caFile
        var found: [String: (endpoint: String, p256dh: [UInt8], auth: [UInt8])] = [:]
        for (id, value) in made.members {
            guard let endpoint = value["endpoint"]?.stringValue, let p256dh = value["p256dh"]?.stringValue.flatMap(Base64.decode),
                  let auth = value["auth"]?.stringValue.flatMap(Base64.decode) else {
                throw ChildProcessError(message: "the mock's subscription \(id) is not whole")
            }
            found[id] = (endpoint, p256dh, auth)
        }
        self.subscriptions = found
    }

    var pushes: [JSON] {
        program.eventLines.compactMap { try? JSONParser.parse(Array($0.utf8)) }
    }
}

/// One push request through `PushDelivery` to the mock push service over real TLS on
/// loopback: the mock checks the VAPID token and decrypts the message as a browser would.
@Suite(.serialized, .enabled(if: MockProgram.unavailable == nil, "make test-deps builds .venv"))
struct PushDeliveryMockTests {
    let mock: MockPushService
    let loop: EventLoop
    let vapid: VAPIDToken
    let tls: TLSClientContext

    init() throws {
        signal(SIGPIPE, SIG_IGN)
        mock = try MockPushService(["ok", "gone:410", "busy:429", "large:413", "silent:-1", "slow:-2"])
        loop = try EventLoop()
        vapid = VAPIDToken(key: try P256.PrivateKey(), subject: "mailto:ops@home.example.net", clock: SystemClock.shared)
        tls = try TLSClientContext(extraCAFile: mock.caFile)
    }

    func deliver(_ id: String, message: String = #"{"title":"Deploy?"}"#, allowingPrivate: Bool = true,
                 endpoint: String? = nil, timeout: TimeSpan = .seconds(10)) throws -> PushDelivery.Result? {
        let subscription = try #require(mock.subscriptions[id])
        let body = try WebPushMessage.encrypt(Array(message.utf8), paddedLength: 128,
                                              subscriber: try #require(P256.PublicKey(uncompressed: subscription.p256dh)),
                                              authSecret: subscription.auth)
        let target = try PushEndpoint(endpoint ?? subscription.endpoint)
        let request = PushRequest(endpoint: target, ttl: 600, urgency: .high, topic: "qst_1", body: body)
        var result: PushDelivery.Result?
        PushDelivery(request, authorization: try #require(vapid.authorization(for: target.origin)), loop: loop, tls: tls,
                     allowsPrivateHosts: allowingPrivate, timeout: timeout) { result = $0 }.start()
        let deadline = SystemClock.shared.now + .seconds(15)
        while result == nil && SystemClock.shared.now < deadline {
            loop.runOnce(maxWait: .milliseconds(20))
        }
        return result
    }

    @Test func theServiceTakesThePushAndReadsTheMessageAsABrowserWould() throws {
        guard case .answered(let answer) = try deliver("ok") else { Issue.record("no answer"); return }
        #expect(answer.status == 201 && answer.verdict == .delivered)
        let push = try #require(mock.pushes.first)
        #expect(push["plaintext"] == #"{"title":"Deploy?"}"#)
        #expect(push["vapid"]?["problems"] == [])
        #expect(push["vapid"]?["claims"]?["aud"]?.stringValue == mock.origin)
        #expect(push["ttl"] == "600" && push["urgency"] == "high" && push["topic"] == "qst_1")
        #expect(push["content_encoding"] == "aes128gcm" && push["content_type"] == "application/octet-stream")
        #expect(push["length"]?.int64Value == Int64(WebPushMessage.headerSize + 128 + 1 + 16))
    }

    @Test func eachRefusalOfTheServiceIsAnsweredWithItsVerdict() throws {
        guard case .answered(let gone) = try deliver("gone"), case .answered(let busy) = try deliver("busy"),
              case .answered(let large) = try deliver("large") else {
            Issue.record("no answer")
            return
        }
        #expect(gone.verdict == .gone && gone.status == 410)
        #expect(busy.verdict == .retry && busy.retryAfterSeconds == 1)
        #expect(large.verdict == .tooLarge)
    }

    @Test(arguments: ["silent", "slow"])
    func aServiceThatNeverAnswersOrTricklesEndsAtTheTimeoutWhileTheLoopGoesOn(_ id: String) throws {
        // A timer of the loop's own keeps firing while the push waits: nothing blocks.
        var ticks = 0
        var tick: (() -> Void)!
        tick = { ticks += 1; loop.schedule(after: .milliseconds(100), tick) }
        loop.schedule(after: .milliseconds(100), tick)
        let started = SystemClock.shared.now
        let result = try deliver(id, timeout: .seconds(2))
        let took = SystemClock.shared.now - started
        guard case .failed(let reason)? = result else { Issue.record("not a failure: \(String(describing: result))"); return }
        #expect(reason.contains("within 2000 ms"), "\(reason)")
        // The timer runs on the loop's clock, read at the start of its turn, so the wall time
        // it took may be a little under 2 s: only the end is checked, not its exact moment.
        #expect(took < .seconds(6), "\(took)")
        #expect(ticks >= 10)
    }

    @Test func aServiceOnThisMachineIsBlockedUnlessAllowed() throws {
        #expect(try deliver("ok", allowingPrivate: false) == .blocked("127.0.0.1 is an address of this machine or its network"))
        #expect(mock.pushes.isEmpty, "nothing was sent")
    }

    @Test func noServiceListeningIsAFailureToTryAgain() throws {
        // A port nothing listens on (held bound, not listening: no other test's server can
        // take it meanwhile).
        let (held, port) = closedLoopbackPort()
        defer { close(held) }
        guard case .failed = try deliver("ok", endpoint: "https://127.0.0.1:\(port)/push/ok") else {
            Issue.record("expected a failure")
            return
        }
    }
}
