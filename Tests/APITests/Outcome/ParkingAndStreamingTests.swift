@testable import API
import Clock
import HTTP
import HTTPTestSupport
import Relaydeck
import Testing

/// Endpoints that park or stream, through `handle` over real sockets, and the record each
/// request leaves for the after-response hook.
@Suite struct ParkingAndStreamingTests {
    private let routes = WaitingRoutes()

    private func server() throws -> APIServer {
        try APIServer { [routes] _ in [routes] }
    }

    @Test func aParkedCallIsAnsweredByAWakeUp() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/things/a?wait=30", token: token)
        api.loopback.pump(rounds: 5)
        #expect(!client.hasCompleteResponse)
        #expect(api.handler.waitingCount == 1)

        api.loopback.advance(by: .seconds(4))
        routes.results["a"] = "done"
        api.handler.wake(WaitingRoutes.topic("a"))
        #expect(api.loopback.response(client)?.bodyText == #"{"status":"done"}"#)
        #expect(api.handler.waitingCount == 0)
        let record = try #require(api.records.last)
        #expect(record.parked)
        #expect(record.ending == .answered)
        #expect(record.status == 200)
        #expect(record.route == "/test/things/{thing_id}")
        #expect(record.duration >= .seconds(4))
    }

    @Test func aWakeUpOfAnotherTopicOrWithNothingNewKeepsWaiting() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/things/a?wait=30", token: token)
        api.loopback.pump(rounds: 5)
        routes.results["b"] = "done"
        api.handler.wake(WaitingRoutes.topic("b"))
        api.handler.wake(WaitingRoutes.topic("a"))
        api.loopback.pump(rounds: 5)
        #expect(!client.hasCompleteResponse)
        #expect(api.handler.waitingCount == 1)
    }

    @Test func aParkedCallAnswersWhenItsTimeIsUpAndOnlyWaited() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/things/a?wait=30", token: token)
        api.loopback.pump(rounds: 5)
        api.loopback.advance(by: .seconds(29))
        #expect(!client.hasCompleteResponse)
        api.loopback.advance(by: .seconds(2))
        #expect(api.loopback.response(client)?.bodyText == #"{"status":"pending"}"#)
        let record = try #require(api.records.last)
        #expect(record.ending == .onlyWaited)
        #expect(record.duration >= .seconds(30))
        #expect(api.handler.waitingCount == 0)
    }

    @Test func aClientThatGoesAwayFreesItsParkedCallAtOnce() throws {
        let api = try server()
        let token = try api.accountToken()
        var client: TestClient? = api.loopback.connect()
        api.get(client!, "/test/things/a?wait=50", token: token)
        api.loopback.pump(rounds: 5)
        #expect(api.handler.waitingCount == 1)
        client = nil
        api.loopback.pump { api.handler.waitingCount == 0 }
        #expect(api.handler.waitingCount == 0)
        #expect(api.records.last?.ending == .clientWentAway)
        // A later change finds nobody to answer.
        routes.results["a"] = "done"
        api.handler.wake(WaitingRoutes.topic("a"))
        api.loopback.pump(rounds: 5)
        #expect(api.records.count == 2)
    }

    @Test func aPollThatFailsAnswersTheErrorAndRecordsIt() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/things/a?wait=30", token: token)
        api.loopback.pump(rounds: 5)
        routes.deleted.insert("a")
        api.handler.wake(WaitingRoutes.topic("a"))
        let response = api.loopback.response(client)
        #expect(response?.status == 404)
        #expect(response?.bodyText == #"{"error":{"code":"not_found","message":"Thing not found."}}"#)
        #expect(api.records.last?.code == "not_found")
    }

    @Test func theServerStoppingAnswersAParkedCall() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/things/a?wait=50", token: token)
        api.loopback.pump(rounds: 5)
        var stopped = false
        api.loopback.server.shutdown(timeout: .seconds(5)) { stopped = true }
        #expect(api.loopback.response(client)?.bodyText == #"{"status":"pending"}"#)
        api.loopback.pump { stopped }
        #expect(api.handler.waitingCount == 0)
    }

    @Test func aQueryProblemOfAWaitingRouteIsA422BeforeAnyWait() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/things/a?wait=51", token: token)
        let response = api.loopback.response(client)
        #expect(response?.status == 422)
        #expect(response?.bodyText == #"{"error":{"code":"validation_failed","message":"Invalid fields: wait.","fields":{"wait":"Must be an integer from 0 to 50."}}}"#)
        #expect(api.records.last?.fields == ["wait"])
        #expect(api.handler.waitingCount == 0)
    }

    @Test func aStreamOpensThroughHandleAndIsRecordedWhenItEnds() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/stream", token: token)
        api.loopback.pump { client.peekText().contains("event: ready") }
        let text = client.takeText()
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Content-Type: text/event-stream\r\n"))
        #expect(text.contains("event: ready\ndata: {\"account_id\":\"acc_"))
        let before = api.records.count
        client.close()
        api.loopback.pump { api.records.count > before }
        #expect(api.records.last?.ending == .streamEnded)
        #expect(api.records.last?.route == "/test/stream")
    }

    @Test func theHookRunsOnceForEveryRequestFailuresIncluded() throws {
        let api = try server()
        let client = api.loopback.connect()
        client.send("GET /v1/keys HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer mca_nope\r\n\r\n")
        #expect(api.loopback.response(client)?.status == 401)
        client.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(api.loopback.response(client)?.status == 404)
        #expect(api.records.map(\.status) == [401, 404])
        #expect(api.records.map(\.route) == ["/v1/keys", nil])
    }

    /// `rest-api.md#wait-for-the-answer`: 32 waiting calls per key; the 33rd is `429`, a
    /// call that does not wait is not counted, and a client that goes away frees its place.
    @Test func aKeyHasThirtyTwoWaitingCalls() throws {
        let api = try server()
        let token = try api.accountToken()
        let secret = try api.keySecret(token: token)
        let other = try api.keySecret(token: token, label: "Other")
        var clients: [TestClient] = []
        for index in 0..<32 {
            let client = api.loopback.connect()
            api.get(client, "/test/things/t\(index)?wait=50", token: secret)
            clients.append(client)
        }
        api.loopback.pump { api.handler.waitingCount == 32 }
        #expect(api.handler.waitingCount == 32)

        let refused = api.loopback.connect()
        api.get(refused, "/test/things/x?wait=50", token: secret)
        let answer = api.loopback.response(refused)
        #expect(answer?.status == 429)
        #expect(answer?.header("Retry-After") == "1")
        // Without a wait, and for another key, nothing is refused.
        api.get(refused, "/test/things/x?wait=0", token: secret)
        #expect(api.loopback.response(refused)?.status == 200)
        let otherClient = api.loopback.connect()
        api.get(otherClient, "/test/things/y?wait=50", token: other)
        api.loopback.pump { api.handler.waitingCount == 33 }
        #expect(api.handler.waitingCount == 33)

        clients.removeFirst().close()
        api.loopback.pump { api.handler.waitingCount == 32 }
        api.get(refused, "/test/things/x?wait=50", token: secret)
        api.loopback.pump { api.handler.waitingCount == 33 }
        #expect(api.handler.waitingCount == 33)
    }
}
