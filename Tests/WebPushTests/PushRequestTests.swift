import Crypto
import HTTPClient
import Testing
@testable import WebPush

@Suite struct PushRequestTests {
    @Test func theRequestCarriesRFC8030sHeadersAndTheBodyAndReadsOnlyTheAnswersHead() throws {
        let request = PushRequest(endpoint: try PushEndpoint("https://push.example:8443/send/abc?x=1"), ttl: 600,
                                  urgency: .high, topic: "qst_01J9", body: [1, 2, 3])
        let sent = request.clientRequest(authorization: "vapid t=a.b.c, k=K")
        #expect(sent.method == "POST" && sent.url.description == "https://push.example:8443/send/abc?x=1")
        #expect(sent.headers.map { "\($0.name): \($0.value)" } == [
            "TTL: 600", "Urgency: high", "Topic: qst_01J9", "Content-Type: application/octet-stream",
            "Content-Encoding: aes128gcm", "Authorization: vapid t=a.b.c, k=K",
        ])
        #expect(sent.body == [1, 2, 3] && !sent.readsAnswerBody)
        let noTopic = PushRequest(endpoint: try PushEndpoint("https://push.example/s"), ttl: -5, urgency: .low, topic: nil, body: [])
        let plain = noTopic.clientRequest(authorization: "x")
        #expect(!plain.headers.contains("Topic") && plain.headers["TTL"] == "0" && plain.url.authority == "push.example")
        #expect(plain.body == [])
    }

    @Test func aTopicIsAtMost32CharactersOfTheBase64urlAlphabet() {
        #expect(PushRequest.topic(for: "tsk_01J9ZB3X") == "tsk_01J9ZB3X")
        let long = PushRequest.topic(for: "qst_" + String(repeating: "a", count: 40))
        #expect(long.count == 32)
        #expect(PushRequest.topic(for: "a.b") != "a.b")
        for topic in [long, PushRequest.topic(for: "a.b"), PushRequest.topic(for: "")] {
            #expect(topic.utf8.allSatisfy { $0 == 0x5F || $0 == 0x2D || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) })
            #expect(!topic.isEmpty && topic.count <= 32)
        }
        #expect(PushRequest.topic(for: "qst_" + String(repeating: "a", count: 40)) == long, "the same name, the same topic")
    }
}

@Suite struct PushAnswerTests {
    func answer(_ status: Int, _ fields: [(String, String)] = [], now: Int64 = 1_760_000_000) -> PushAnswer {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name, value) }
        return PushAnswer(status: status, headers: headers, nowUnixSeconds: now)
    }

    @Test func eachStatusHasItsVerdict() throws {
        let cases: [(Int, PushAnswer.Verdict)] = [(201, .delivered), (200, .delivered), (202, .delivered), (404, .gone), (410, .gone),
                                                   (413, .tooLarge), (429, .retry), (500, .retry), (503, .retry), (400, .refused),
                                                   (401, .refused), (403, .refused), (301, .refused)]
        for (status, verdict) in cases {
            #expect(answer(status).verdict == verdict, "\(status)")
        }
    }

    @Test func retryAfterIsReadInSecondsOrAsADate() throws {
        #expect(answer(429, [("Retry-After", "120")]).retryAfterSeconds == 120)
        #expect(answer(503, [("retry-after", "7")]).retryAfterSeconds == 7)
        // 1,760,000,000 is Thu, 09 Oct 2025 08:53:20 GMT.
        #expect(answer(503, [("Retry-After", "Thu, 09 Oct 2025 08:54:20 GMT")]).retryAfterSeconds == 60)
        #expect(answer(503, [("Retry-After", "Thu, 09 Oct 2025 08:00:00 GMT")]).retryAfterSeconds == 0, "a date passed")
        #expect(answer(503, [("Retry-After", "soon")]).retryAfterSeconds == nil)
        #expect(answer(503, [("Retry-After", "-5")]).retryAfterSeconds == nil)
        #expect(answer(503).retryAfterSeconds == nil)
    }
}
