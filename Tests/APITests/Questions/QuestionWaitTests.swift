@testable import API
import Clock
import HTTPTestSupport
import JSON
import Relaydeck
import Testing

/// `rest-api.md#wait-for-the-answer` over real sockets: the wait ends the moment the question
/// leaves `pending`, at its `expires_at`, or at the end of the wait.
@Suite struct QuestionWaitTests {
    private let api: APIServer
    private let token: String
    private let secret: String

    init() throws {
        api = try APIServer()
        token = try api.accountToken()
        secret = try api.keySecret(token: token)
    }

    private func ask(_ body: String = #"{"prompt": "Deploy?"}"#) throws -> String {
        let client = api.loopback.connect()
        client.send("POST /v1/questions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let text = api.loopback.response(client)?.bodyText ?? ""
        return try #require(try JSONParser.parse(Array(text.utf8))["id"]?.stringValue)
    }

    private func status(_ response: TestResponse?) -> String? {
        response.flatMap { try? JSONParser.parse($0.body)["status"]?.stringValue }
    }

    @Test func anAnswerWakesTheWaitingAgentAtOnce() throws {
        let id = try ask()
        let agent = api.loopback.connect()
        api.get(agent, "/v1/questions/\(id)?wait=30", token: secret)
        api.loopback.pump(rounds: 5)
        #expect(!agent.hasCompleteResponse)

        let app = api.loopback.connect()
        app.send("POST /v1/questions/\(id)/answer HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: 17\r\n\r\n{\"answer\": \"Yes\"}")
        #expect(api.loopback.response(app)?.status == 200)
        // No time passes on the loop's clock: the wake-up is not a poll on an interval.
        let woken = api.loopback.response(agent)
        #expect(status(woken) == "answered")
        let record = try #require(api.records.first { $0.parked })
        #expect(record.ending == .answered)
    }

    @Test func theWaitEndsWithPendingAndOnlyWaited() throws {
        let id = try ask()
        let agent = api.loopback.connect()
        api.get(agent, "/v1/questions/\(id)?wait=2", token: secret)
        api.loopback.pump(rounds: 5)
        api.wall.advance(millis: 2_000)
        api.loopback.advance(by: .milliseconds(2_001))
        #expect(status(api.loopback.response(agent)) == "pending")
        #expect(api.records.last?.ending == .onlyWaited)
    }

    @Test func aQuestionThatExpiresDuringTheWaitAnswersAtItsTime() throws {
        let id = try ask(#"{"prompt": "Deploy?", "expires_in": 60}"#)
        api.wall.advance(millis: 40_000)
        let agent = api.loopback.connect()
        api.get(agent, "/v1/questions/\(id)?wait=50", token: secret)
        api.loopback.pump(rounds: 5)
        api.wall.advance(millis: 19_000)
        api.loopback.advance(by: .seconds(19))
        #expect(!agent.hasCompleteResponse)
        api.wall.advance(millis: 1_001)
        api.loopback.advance(by: .milliseconds(1_002))
        #expect(status(api.loopback.response(agent)) == "expired")
        #expect(api.records.last?.ending == .answered)
    }

    /// Without any read, the sweep expires a question within 10 seconds of its time.
    @Test func theSweepExpiresAQuestionNobodyReads() throws {
        var updates: [String] = []
        api.handler.context.services.hub.subscribe { change in
            if case .questionUpdated(let question) = change.event { updates.append(question.status.rawValue) }
        }
        _ = try ask(#"{"prompt": "Deploy?", "expires_in": 60}"#)
        api.wall.advance(millis: 60_000)
        api.loopback.advance(by: .seconds(10))
        #expect(updates == ["expired"])
    }

    @Test func aCancelWakesTheWaitingCall() throws {
        let id = try ask()
        let agent = api.loopback.connect()
        api.get(agent, "/v1/questions/\(id)?wait=30", token: secret)
        api.loopback.pump(rounds: 5)
        let other = api.loopback.connect()
        other.send("DELETE /v1/questions/\(id) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\n\r\n")
        #expect(api.loopback.response(other)?.status == 204)
        #expect(status(api.loopback.response(agent)) == "cancelled")
    }
}
