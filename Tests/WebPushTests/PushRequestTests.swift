import Crypto
import Testing
@testable import WebPush

@Suite struct PushRequestTests {
    @Test func theRequestCarriesRFC8030sHeadersAndTheBody() throws {
        let request = PushRequest(endpoint: try PushEndpoint("https://push.example:8443/send/abc?x=1"), ttl: 600,
                                  urgency: .high, topic: "qst_01J9", body: [1, 2, 3])
        let text = String(decoding: request.bytes(authorization: "vapid t=a.b.c, k=K"), as: UTF8.self)
        #expect(text == "POST /send/abc?x=1 HTTP/1.1\r\nHost: push.example:8443\r\nTTL: 600\r\nUrgency: high\r\n"
            + "Topic: qst_01J9\r\nContent-Type: application/octet-stream\r\nContent-Encoding: aes128gcm\r\n"
            + "Content-Length: 3\r\nAuthorization: vapid t=a.b.c, k=K\r\nConnection: close\r\n\r\n\u{1}\u{2}\u{3}")
        let noTopic = PushRequest(endpoint: try PushEndpoint("https://push.example/s"), ttl: -5, urgency: .low, topic: nil, body: [])
        let plain = String(decoding: noTopic.bytes(authorization: "x"), as: UTF8.self)
        #expect(!plain.contains("Topic:") && plain.contains("TTL: 0\r\n") && plain.contains("Host: push.example\r\n"))
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
    func parse(_ text: String, now: Int64 = 1_760_000_000) throws -> PushAnswer? {
        try PushAnswer.parse(Array(text.utf8), nowUnixSeconds: now)
    }

    @Test func eachStatusHasItsVerdict() throws {
        let cases: [(Int, PushAnswer.Verdict)] = [(201, .delivered), (200, .delivered), (202, .delivered), (404, .gone), (410, .gone),
                                                   (413, .tooLarge), (429, .retry), (500, .retry), (503, .retry), (400, .refused),
                                                   (401, .refused), (403, .refused), (301, .refused)]
        for (status, verdict) in cases {
            #expect(try parse("HTTP/1.1 \(status) Whatever\r\nContent-Length: 0\r\n\r\n")?.verdict == verdict, "\(status)")
        }
    }

    @Test func retryAfterIsReadInSecondsOrAsADate() throws {
        #expect(try parse("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 120\r\n\r\n")?.retryAfterSeconds == 120)
        #expect(try parse("HTTP/1.1 503 x\r\nretry-after:  7 \r\n\r\n")?.retryAfterSeconds == 7)
        // 1,760,000,000 is Thu, 09 Oct 2025 08:53:20 GMT.
        #expect(try parse("HTTP/1.1 503 x\r\nRetry-After: Thu, 09 Oct 2025 08:54:20 GMT\r\n\r\n")?.retryAfterSeconds == 60)
        #expect(try parse("HTTP/1.1 503 x\r\nRetry-After: Thu, 09 Oct 2025 08:00:00 GMT\r\n\r\n")?.retryAfterSeconds == 0, "a date passed")
        #expect(try parse("HTTP/1.1 503 x\r\nRetry-After: soon\r\n\r\n")?.retryAfterSeconds == nil)
        #expect(try parse("HTTP/1.1 503 x\r\nRetry-After: -5\r\n\r\n")?.retryAfterSeconds == nil)
        #expect(try parse("HTTP/1.1 503 x\r\n\r\n")?.retryAfterSeconds == nil)
        #expect(PushAnswer.imfFixdate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }

    @Test func aHeadThatHasNotEndedWaitsAndOneTooLongOrNotHTTPIsRefused() throws {
        #expect(try parse("HTTP/1.1 201 Created\r\nLocation: /m/1\r\n") == nil)
        #expect(throws: PushAnswer.Malformed.self) { try parse("SSH-2.0-OpenSSH\r\n\r\n") }
        #expect(throws: PushAnswer.Malformed.self) { try parse("HTTP/2 201\r\n\r\n") }
        #expect(throws: PushAnswer.Malformed.self) { try parse("HTTP/1.1 20 x\r\n\r\n") }
        #expect(throws: PushAnswer.Malformed.self) { try parse("HTTP/1.1 201 Created\r\nX: " + String(repeating: "a", count: 17_000)) }
    }
}
