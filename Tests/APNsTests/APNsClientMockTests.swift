#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import EventLoop
import JSON
import Logging
import Synchronization
@testable import APNs

/// Log lines captured from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// The client against the mock APNs server (Tests/e2e/apns_mock.py, HTTP/2 on h2 over TLS),
/// over loopback: what a push looks like on the wire, and how each answer ends it.
@Suite(.serialized) struct APNsClientMockTests {
    let token = String(repeating: "0f", count: 32)

    final class Harness {
        let mock: MockAPNsProcess
        let loop: EventLoop
        let client: APNsClient

        init(mockArguments: [String] = [], tune: (inout APNsConfiguration) -> Void = { _ in }) throws {
            signal(SIGPIPE, SIG_IGN)
            mock = try MockAPNsProcess(mockArguments)
            loop = try EventLoop()
            var configuration = APNsConfiguration(
                teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: mock.privateKeyPEM,
                productionURL: mock.url, sandboxURL: mock.url, caFile: mock.caFile)
            // Short waits: a test should not sleep through a real backoff.
            configuration.retry = APNsRetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
            tune(&configuration)
            client = try APNsClient(configuration: configuration, loop: loop, random: { 0.5 })
        }

        /// Sends the pushes and runs the loop until every one has its result (10 s at most).
        func send(_ requests: [APNsRequest]) -> [APNsResult?] {
            var results = [APNsResult?](repeating: nil, count: requests.count)
            var calls = 0
            for (i, request) in requests.enumerated() {
                client.send(request) { result in
                    #expect(results[i] == nil, "completion called twice")
                    results[i] = result
                    calls += 1
                }
            }
            run(seconds: 10) { calls == requests.count }
            return results
        }

        func run(seconds: Int, until done: () -> Bool = { false }) {
            let deadline = SystemClock.shared.now + .seconds(seconds)
            while !done() && SystemClock.shared.now < deadline {
                loop.runOnce(maxWait: .milliseconds(20))
            }
        }

        /// Waits (running the loop) until the mock has written `count` events of `kind`.
        func waitForEvents(_ kind: String, count: Int, seconds: Int = 5) -> [JSON] {
            let deadline = SystemClock.shared.now + .seconds(seconds)
            var found = mock.events(kind)
            while found.count < count && SystemClock.shared.now < deadline {
                loop.runOnce(maxWait: .milliseconds(20))
                found = mock.events(kind)
            }
            return found
        }
    }

    func push(_ token: String? = nil, environment: APNsEnvironment = .production, collapse: String? = "tsk_1") -> APNsRequest {
        APNsRequest(environment: environment, deviceToken: token ?? self.token, pushType: "alert", topic: "com.example.relaydeck",
                    priority: 10, collapseID: collapse, expiration: 1_900_000_000,
                    payload: Array(#"{"aps":{"alert":{"title":"Claude Code","body":"Done"}},"event":"task.updated"}"#.utf8))
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func aPushIsDeliveredWithItsHeadersPayloadAndAValidProviderToken() throws {
        let harness = try Harness()
        #expect(harness.send([push()]) == [.delivered])
        let requests = harness.mock.requests
        try #require(requests.count == 1)
        let request = requests[0]
        #expect(request["method"]?.stringValue == "POST")
        #expect(request["path"]?.stringValue == "/3/device/\(token)")
        #expect(request["jwt_error"]?.isNull == true)
        #expect(request["jwt_claims"]?["iss"]?.stringValue == "TEAM123456")
        let headers = try #require(request["headers"])
        #expect(headers["apns-push-type"]?.stringValue == "alert")
        #expect(headers["apns-topic"]?.stringValue == "com.example.relaydeck")
        #expect(headers["apns-priority"]?.stringValue == "10")
        #expect(headers["apns-collapse-id"]?.stringValue == "tsk_1")
        #expect(headers["apns-expiration"]?.stringValue == "1900000000")
        #expect(headers["authorization"]?.stringValue?.hasPrefix("bearer ey") == true)
        #expect(request["body"]?.stringValue == #"{"aps":{"alert":{"title":"Claude Code","body":"Done"}},"event":"task.updated"}"#)
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func oneConnectionPerServiceIsKeptAndReusedWithOneProviderToken() throws {
        let harness = try Harness()
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.send([push(), push(environment: .sandbox)]) == [.delivered, .delivered])
        #expect(harness.send([push(environment: .sandbox)]) == [.delivered])
        // Production and sandbox point at the same mock here: one connection each.
        #expect(harness.mock.events("connection").count == 2)
        let requests = harness.mock.requests
        #expect(requests.count == 4)
        #expect(Set(requests.compactMap { $0["headers"]?["authorization"]?.stringValue }).count == 1)
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func goneAndBadTokensAreRefusedWithTheirReasonAtOnce() throws {
        let harness = try Harness(mockArguments: ["--script", "410,400:BadDeviceToken,413:PayloadTooLarge"])
        let lines = LogLines()
        Log.capture { line in lines.append(line) }
        defer { Log.capture(nil) }
        let results = harness.send([push()])
        #expect(results == [.refused(status: 410, reason: "Unregistered")])
        #expect(results[0]?.tokenIsInvalid == true)
        #expect(harness.send([push()]) == [.refused(status: 400, reason: "BadDeviceToken")])
        #expect(harness.send([push()]) == [.refused(status: 413, reason: "PayloadTooLarge")])
        // None of them was tried again.
        #expect(harness.mock.requests.count == 3)
        // Logged with status and reason, never with the device token or the provider token.
        let logged = lines.all.joined(separator: "\n")
        #expect(logged.contains("status=410") && logged.contains("reason=Unregistered"), "\(logged)")
        #expect(logged.contains("reason=BadDeviceToken"), "\(logged)")
        #expect(!logged.contains(token))
        let jwt = try #require(harness.mock.requests.first?["headers"]?["authorization"]?.stringValue?.dropFirst(7))
        #expect(!logged.contains(jwt.prefix(20)))
        #expect(!logged.contains("PRIVATE KEY"))
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func tooManyRequestsAndServerErrorsAreTriedAgain() throws {
        let harness = try Harness(mockArguments: ["--script", "429,500,503"])
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.mock.requests.compactMap { $0["status"]?.int64Value } == [429, 500, 503, 200])
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func retriesStopAfterMaxAttemptsWithTheLastAnswer() throws {
        let harness = try Harness(mockArguments: ["--script", "503,503,503,429,503"])
        #expect(harness.send([push()]) == [.refused(status: 429, reason: "TooManyRequests")])
        #expect(harness.mock.requests.count == 4)
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func anExpiredProviderTokenIsRenewedAndThePushSentAgain() throws {
        let harness = try Harness(mockArguments: ["--script", "403:ExpiredProviderToken"])
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.send([push()]) == [.delivered])
        let tokens = harness.mock.requests.compactMap { $0["headers"]?["authorization"]?.stringValue }
        #expect(tokens.count == 3)
        #expect(tokens[0] != tokens[1], "the token was not renewed")
        #expect(tokens[1] == tokens[2], "the renewed token is not kept")
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func afterGOAWAYThePushGoesAgainOnANewConnection() throws {
        let harness = try Harness(mockArguments: ["--script", "200,goaway"])
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.mock.events("goaway").count == 1)
        #expect(harness.mock.events("connection").count == 2)
        let requests = harness.mock.requests
        #expect(requests.compactMap { $0["connection"]?.int64Value } == [1, 1, 2])
        #expect(requests.last?["status"]?.int64Value == 200)
        // And the new connection is kept.
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.mock.events("connection").count == 2)
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func pushesInFlightWhenTheServerGoesAwayAreAllDelivered() throws {
        // The third stream gets GOAWAY; the mock closes before the first two are answered,
        // so they break with the connection and are tried again, the third goes at once.
        let harness = try Harness(mockArguments: ["--script", "200,200,goaway", "--delay-ms", "150"])
        let tokens = (0..<5).map { String(repeating: String(format2: 0xA0 + $0), count: 32) }
        let results = harness.send(tokens.map { push($0) })
        #expect(results == [APNsResult?](repeating: .delivered, count: 5))
        let requests = harness.mock.requests
        #expect(harness.mock.events("goaway").count == 1)
        #expect(harness.mock.events("connection").count >= 2)
        // Every token reached the mock on a later connection with a 200.
        let delivered = Set(requests.filter { $0["status"]?.int64Value == 200 && $0["connection"]?.int64Value != 1 }
            .compactMap { $0["device_token"]?.stringValue })
        #expect(delivered == Set(tokens))
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func concurrentPushesStayWithinTheServersStreamLimit() throws {
        let harness = try Harness(mockArguments: ["--max-streams", "3", "--delay-ms", "150"])
        let tokens = (0..<12).map { String(repeating: String(format2: $0), count: 32) }
        let results = harness.send(tokens.map { push($0) })
        #expect(results == [APNsResult?](repeating: .delivered, count: 12))
        let requests = harness.mock.requests
        #expect(requests.count == 12)
        let open = requests.compactMap { $0["open_streams"]?.int64Value }
        #expect(open.max() == 3, "streams open at once: \(open)")
        #expect(harness.mock.events("connection").count == 1)
        #expect(harness.mock.events("protocol_error").isEmpty)
        // In the order they were sent.
        #expect(requests.compactMap { $0["device_token"]?.stringValue } == tokens)
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func anIdleConnectionSendsPingsAndStaysOpen() throws {
        let harness = try Harness { $0.idlePingInterval = .milliseconds(200) }
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.waitForEvents("ping", count: 2).count >= 2)
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.mock.events("connection").count == 1)
        #expect(harness.mock.events("closed").isEmpty)
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func aBrokenConnectionIsDroppedAndTheNextPushConnectsAgain() throws {
        let harness = try Harness()
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.client.connection(for: .production) != nil)
        // The server goes away: the connection sees the end and is dropped.
        harness.mock.program.process.terminate()
        harness.mock.program.process.wait()
        harness.run(seconds: 5) { harness.client.connection(for: .production) == nil }
        #expect(harness.client.connection(for: .production) == nil)
        // The next push makes a new connection, which nothing accepts now.
        let results = harness.send([push()])
        guard case .unreachable(let reason)? = results.first else {
            Issue.record("not unreachable: \(results)")
            return
        }
        #expect(reason.contains("Connection refused"), "\(reason)")
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func anUnansweredPingClosesTheConnection() throws {
        let harness = try Harness(mockArguments: ["--stall-after", "1"]) {
            $0.idlePingInterval = .milliseconds(100)
            $0.pingTimeout = .milliseconds(300)
        }
        #expect(harness.send([push()]) == [.delivered])
        #expect(harness.client.connection(for: .production) != nil)
        harness.run(seconds: 5) { harness.client.connection(for: .production) == nil }
        #expect(harness.client.connection(for: .production) == nil)
        // The mock stopped reading after the push, so the PING went unanswered.
        #expect(harness.mock.events("stalled").count == 1)
        #expect(harness.mock.events("ping").isEmpty)
    }

    @Test(.enabled(if: MockAPNsProcess.unavailable == nil, "make deps builds .venv with h2"))
    func aPushWithoutAnAnswerTimesOutAndEndsUnreachable() throws {
        let harness = try Harness(mockArguments: ["--stall-after", "0"]) {
            $0.requestTimeout = .milliseconds(200)
            $0.retry = APNsRetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(10))
        }
        let results = harness.send([push()])
        guard case .unreachable(let reason)? = results.first else {
            Issue.record("not unreachable: \(results)")
            return
        }
        #expect(reason.hasSuffix("within 200 ms"), "\(reason)")
    }

    @Test func aServiceThatCannotBeReachedEndsAsUnreachableAfterTheRetries() throws {
        let loop = try EventLoop()
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        // A port nothing listens on (held bound, not listening).
        let (held, port) = closedLoopbackPort()
        defer { close(held) }
        var configuration = APNsConfiguration(
            teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: key.pem,
            productionURL: "https://127.0.0.1:\(port)", sandboxURL: "https://127.0.0.1:\(port)")
        configuration.retry = APNsRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        let client = try APNsClient(configuration: configuration, loop: loop, random: { 0 })
        var result: APNsResult?
        client.send(push()) { result = $0 }
        let deadline = SystemClock.shared.now + .seconds(10)
        while result == nil && SystemClock.shared.now < deadline { loop.runOnce(maxWait: .milliseconds(20)) }
        guard case .unreachable(let reason) = result else {
            Issue.record("not unreachable: \(String(describing: result))")
            return
        }
        #expect(reason.contains("cannot connect to 127.0.0.1:\(port)"), "\(reason)")
        #expect(reason.contains("Connection refused"), "\(reason)")
    }

    @Test func aHostThatDoesNotResolveEndsAsUnreachable() throws {
        let loop = try EventLoop()
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        var configuration = APNsConfiguration(
            teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: key.pem,
            productionURL: "https://apns.invalid", sandboxURL: "https://apns.invalid")
        configuration.retry = APNsRetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        let client = try APNsClient(configuration: configuration, loop: loop)
        var result: APNsResult?
        client.send(push()) { result = $0 }
        let deadline = SystemClock.shared.now + .seconds(20)
        while result == nil && SystemClock.shared.now < deadline { loop.runOnce(maxWait: .milliseconds(20)) }
        guard case .unreachable(let reason) = result else {
            Issue.record("not unreachable: \(String(describing: result))")
            return
        }
        #expect(reason.hasPrefix("cannot resolve \"apns.invalid\""), "\(reason)")
    }

    @Test func aBadDeviceTokenNeverLeavesTheProcess() throws {
        let loop = try EventLoop()
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        let configuration = APNsConfiguration(teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: key.pem,
                                              productionURL: "https://127.0.0.1:1", sandboxURL: "https://127.0.0.1:1")
        let client = try APNsClient(configuration: configuration, loop: loop)
        var result: APNsResult?
        client.send(push("../../admin")) { result = $0 }
        #expect(result == nil, "the completion ran inside send")
        loop.runOnce(maxWait: .milliseconds(10))
        #expect(result == .refused(status: 400, reason: "BadDeviceToken"))
    }

    @Test func aConfigurationItCannotUseIsRefused() throws {
        let loop = try EventLoop()
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        func make(_ change: (inout APNsConfiguration) -> Void) -> String? {
            var configuration = APNsConfiguration(teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: key.pem)
            change(&configuration)
            do {
                _ = try APNsClient(configuration: configuration, loop: loop)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(make { _ in } == nil)
        #expect(make { $0.teamID = "team" } == "the APNs team ID is not 10 of A-Z and 0-9")
        #expect(make { $0.keyID = "KEY\"123456" } == "the APNs key ID is not 10 of A-Z and 0-9")
        #expect(make { $0.tokenLifetime = .seconds(10 * 60) } == "the provider token lifetime must be 20 to 60 minutes")
        #expect(make { $0.tokenLifetime = .seconds(61 * 60) } == "the provider token lifetime must be 20 to 60 minutes")
        #expect(make { $0.productionURL = "api.push.apple.com" }?.contains("is not https://host[:port]") == true)
        #expect(make { $0.caFile = directory.file("missing.pem") }?.hasPrefix("APNs TLS: cannot load the CA file") == true)
        #expect(make { $0.privateKeyPEM = Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8) }
            == "the APNs private key is not a PEM private key (PKCS #8, as in the .p8 file)")
    }
}

extension String {
    /// Two lowercase hex digits of `value` (0...255).
    init(format2 value: Int) {
        let digits = Array("0123456789abcdef")
        self = String([digits[(value >> 4) & 15], digits[value & 15]])
    }
}

