import Testing
import Clock
@testable import APNs

@Suite struct APNsRequestShapeTests {
    let token = String(repeating: "ab", count: 32)

    @Test func headersCarryEveryFieldOfThePush() {
        let request = APNsRequest(environment: .production, deviceToken: token, pushType: "alert", topic: "com.example.app",
                                  priority: 10, collapseID: "tsk_01", expiration: 1_760_000_000, payload: Array("{}".utf8))
        let headers = APNsHeaders.build(for: request, authority: "api.push.apple.com", scheme: "https", providerToken: "JWT")
        #expect(headers.map { "\($0.0): \($0.1)" } == [
            ":method: POST", ":scheme: https", ":authority: api.push.apple.com", ":path: /3/device/\(token)",
            "authorization: bearer JWT", "apns-push-type: alert", "apns-topic: com.example.app", "apns-priority: 10",
            "apns-collapse-id: tsk_01", "apns-expiration: 1760000000", "content-type: application/json", "content-length: 2",
        ])
    }

    @Test func absentCollapseIDAndExpirationSendNoHeader() {
        let request = APNsRequest(environment: .sandbox, deviceToken: token, pushType: "background", topic: "t", priority: 5,
                                  payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
        let names = APNsHeaders.build(for: request, authority: "a", scheme: "https", providerToken: "J").map(\.0)
        #expect(!names.contains("apns-collapse-id"))
        #expect(!names.contains("apns-expiration"))
        #expect(APNsHeaders.build(for: request, authority: "a", scheme: "https", providerToken: "J").first { $0.0 == "apns-priority" }?.1 == "5")
    }

    @Test func tokensAndHeaderValuesThatCannotBeSentAreCaughtBeforeSending() {
        func request(token: String = String(repeating: "ab", count: 32), topic: String = "t", collapse: String? = nil) -> APNsRequest {
            APNsRequest(environment: .production, deviceToken: token, pushType: "alert", topic: topic, priority: 10,
                        collapseID: collapse, payload: [0x7B, 0x7D])
        }
        #expect(APNsHeaders.problem(in: request()) == nil)
        #expect(APNsHeaders.problem(in: request(token: "")) == "BadDeviceToken")
        #expect(APNsHeaders.problem(in: request(token: "ab/../cd")) == "BadDeviceToken")
        #expect(APNsHeaders.problem(in: request(token: "ab cd")) == "BadDeviceToken")
        #expect(APNsHeaders.problem(in: request(topic: "")) == "MissingTopic")
        #expect(APNsHeaders.problem(in: request(collapse: "a\r\nx-injected: 1")) == "BadHeaderValue")
    }

    @Test func errorReasonsAreReadFromTheJSONBody() {
        #expect(APNsClient.reason(in: Array(#"{"reason":"BadDeviceToken"}"#.utf8)) == "BadDeviceToken")
        #expect(APNsClient.reason(in: Array(#"{"reason":"Unregistered","timestamp":1760000000000}"#.utf8)) == "Unregistered")
        #expect(APNsClient.reason(in: []) == nil)
        #expect(APNsClient.reason(in: Array("<html>".utf8)) == nil)
        #expect(APNsClient.reason(in: Array(#"{"reason":5}"#.utf8)) == nil)
    }

    @Test func retriesCoverTooManyRequestsAndServerErrorsOnly() {
        #expect([429, 500, 503].allSatisfy(APNsRetryPolicy.isRetryable))
        #expect(![200, 400, 403, 404, 405, 410, 413, 502].contains(where: APNsRetryPolicy.isRetryable))
    }

    @Test func theWaitDoublesWithHalfOfItRandomUpToTheCap() {
        let policy = APNsRetryPolicy(maxAttempts: 6, baseDelay: .seconds(1), maxDelay: .seconds(5))
        #expect(policy.delay(after: 1, random: 0) == .milliseconds(500))
        #expect(policy.delay(after: 1, random: 0.999_999).milliseconds == 999)
        #expect(policy.delay(after: 2, random: 0) == .seconds(1))
        #expect(policy.delay(after: 3, random: 0.5) == .seconds(3))
        // Capped: 2^3 s would be 8 s.
        #expect(policy.delay(after: 4, random: 0) == .milliseconds(2500))
        #expect(policy.delay(after: 4, random: 1) == .seconds(5))
        #expect(policy.delay(after: 60, random: 1) == .seconds(5))
        // Jitter moves the wait: two randoms, two waits.
        #expect(policy.delay(after: 2, random: 0.1) != policy.delay(after: 2, random: 0.9))
    }

    @Test func endpointsAreReadFromTheirURLs() throws {
        let apple = try APNsEndpoint(url: "https://api.push.apple.com")
        #expect(apple == APNsEndpoint(host: "api.push.apple.com", port: 443, usesTLS: true))
        #expect(apple.authority == "api.push.apple.com")
        let mock = try APNsEndpoint(url: "https://127.0.0.1:8443/")
        #expect(mock == APNsEndpoint(host: "127.0.0.1", port: 8443, usesTLS: true))
        #expect(mock.authority == "127.0.0.1:8443")
        let v6 = try APNsEndpoint(url: "http://[::1]:9000")
        #expect(v6 == APNsEndpoint(host: "::1", port: 9000, usesTLS: false))
        #expect(v6.authority == "[::1]:9000")
        for bad in ["api.push.apple.com", "ftp://x", "https://", "https://host:0", "https://host:70000", "https://host/3/device",
                    "https://[::1", "https://user@host"] {
            #expect(throws: APNsConfigurationError.self, "\(bad)") { try APNsEndpoint(url: bad) }
        }
    }
}
