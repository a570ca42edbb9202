@testable import API
import Clock
@testable import EventLoop
import HTTP
import HTTPTestSupport
import Relaydeck
import Testing

/// Routes whose endpoint awaits something that is not at hand, as a statement sent to a
/// database over the network will be: the answer comes when the test gives it.
final class AwaitingRoutes: RouteGroup {
    /// The continuation of each endpoint waiting now, in the order they asked.
    private var waiting: [CheckedContinuation<String, Never>] = []
    /// Endpoints that ended, and what they got.
    private(set) var ended: [String] = []

    var waitingCount: Int { waiting.count }

    var routes: [Route] {
        [
            Route("/test/later/{name}", [
                Endpoint(.get, .account { [self] call, _ in
                    let name = try call.path("name")
                    let value = await withCheckedContinuation { waiting.append($0) }
                    ended.append("\(name):\(value)")
                    return .respond(.json(200, Array(#"{"name":"\#(name)","value":"\#(value)"}"#.utf8)))
                }),
            ]),
            Route("/test/now/{name}", [
                Endpoint(.get, .account { call, _ in
                    .respond(.json(200, Array(#"{"name":"\#(try call.path("name"))"}"#.utf8)))
                }),
            ]),
        ]
    }

    /// Gives the first waiting endpoint its value.
    func answer(_ value: String) {
        waiting.removeFirst().resume(returning: value)
    }
}

/// A request whose task awaits what is not at hand (`APIHandler.handle` parks it; with
/// SQLite no request does), through `handle` over real sockets.
@Suite struct SuspendedRequestTests {
    private let routes = AwaitingRoutes()

    private func server() throws -> APIServer {
        try APIServer { [routes] _ in [routes] }
    }

    @Test func aRequestWhoseTaskWaitsIsAnsweredWhenItGoesOn() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/later/a", token: token)
        api.loopback.pump(rounds: 5)
        #expect(routes.waitingCount == 1)
        #expect(!client.hasCompleteResponse)

        api.loopback.loop.schedule(after: .zero) { [routes] in routes.answer("x") }
        let response = try #require(api.loopback.response(client))
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"name":"a","value":"x"}"#)
        let record = try #require(api.records.last)
        #expect(record.status == 200)
        // Its time waiting for the store is the server's, counted in the route's durations.
        #expect(!record.parked)
        #expect(record.ending == .answered)
    }

    @Test func otherRequestsAreAnsweredWhileOneWaits() throws {
        let api = try server()
        let token = try api.accountToken()
        let slow = api.loopback.connect()
        api.get(slow, "/test/later/slow", token: token)
        api.loopback.pump(rounds: 5)
        let fast = api.loopback.connect()
        api.get(fast, "/test/now/fast", token: token)
        #expect(api.loopback.response(fast)?.bodyText == #"{"name":"fast"}"#)
        #expect(!slow.hasCompleteResponse)

        routes.answer("late")
        #expect(api.loopback.response(slow)?.bodyText == #"{"name":"slow","value":"late"}"#)
    }

    @Test func waitingTasksGoOnInTheOrderTheirAnswersCome() throws {
        let api = try server()
        let token = try api.accountToken()
        let first = api.loopback.connect()
        api.get(first, "/test/later/1", token: token)
        api.loopback.pump(rounds: 5)
        let second = api.loopback.connect()
        api.get(second, "/test/later/2", token: token)
        api.loopback.pump(rounds: 5)
        #expect(routes.waitingCount == 2)
        routes.answer("a")
        routes.answer("b")
        #expect(api.loopback.response(second)?.bodyText == #"{"name":"2","value":"b"}"#)
        #expect(api.loopback.response(first)?.bodyText == #"{"name":"1","value":"a"}"#)
        #expect(routes.ended == ["1:a", "2:b"])
    }

    @Test func aTaskThatWaitsTooLongIsAnswered503AndItsLateAnswerDropped() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/later/a", token: token)
        api.loopback.pump(rounds: 5)
        api.loopback.advance(by: APIHandler.writeLockWait + .milliseconds(1))
        let response = try #require(api.loopback.response(client))
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "1")
        let recorded = api.records.count
        #expect(api.records.last?.status == 503)

        // The task goes on when its answer comes, and nothing more is sent or recorded.
        routes.answer("late")
        api.loopback.pump(rounds: 5)
        #expect(routes.ended == ["a:late"])
        #expect(api.records.count == recorded)
        #expect(client.takeText().isEmpty)
    }

    @Test func aClientThatGoesAwayWhileItsTaskWaitsEndsItsRecordOnce() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/later/a", token: token)
        api.loopback.pump(rounds: 5)
        client.close()
        api.loopback.pump(rounds: 10) { api.records.last?.ending == .clientWentAway }
        #expect(api.records.last?.ending == .clientWentAway)
        let recorded = api.records.count

        routes.answer("late")
        api.loopback.pump(rounds: 5)
        #expect(routes.ended == ["a:late"])
        #expect(api.records.count == recorded)
    }

    @Test func healthIsAnsweredWithoutATaskAndOtherRequestsShareOneWorker() throws {
        let api = try server()
        let loop = api.loopback.loop
        let client = api.loopback.connect()
        client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(api.loopback.response(client)?.status == 200)
        #expect(loop.workers.idleCount == 0)

        let token = try api.accountToken()
        for name in ["a", "b", "c"] {
            let client = api.loopback.connect()
            api.get(client, "/test/now/\(name)", token: token)
            #expect(api.loopback.response(client)?.status == 200)
        }
        #expect(loop.workers.idleCount == 1)
    }
}
