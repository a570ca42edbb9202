@testable import API
import Clock
import HTTP
import HTTPTestSupport
import Relaydeck
import SQLite
import Testing

/// The activity entries of calls that wait, through `handle` over real sockets
/// (`rest-api.md#what-has-an-entry`): a call that only waited has none, one that waited and
/// got a result has one with the wait in its `duration_ms`, and so does the event stream not.
@Suite struct WaitingActivityTests {
    private let routes = WaitingRoutes()

    /// The activity table as `(action, status, duration_ms)`, oldest first, once the batch
    /// that waits is written (its timer does not run on the test's clock).
    private func entries(_ api: APIServer) throws -> [String] {
        api.handler.flushActivity()
        return try api.store.read { db in
            let statement = try db.prepare("SELECT action, status, duration_ms FROM activity ORDER BY at, id")
            var rows: [String] = []
            while let row = try statement.nextRow() {
                rows.append("\(try row.text("action")) \(try row.text("status")) \(try row.int64("duration_ms"))")
            }
            return rows
        }
    }

    /// The `at` of every entry, wall-clock milliseconds.
    private func ats(_ api: APIServer) throws -> [Int64] {
        api.handler.flushActivity()
        return try api.store.read { db in
            let statement = try db.prepare("SELECT at FROM activity ORDER BY at, id")
            var rows: [Int64] = []
            while let row = try statement.nextRow() { rows.append(try row.int64("at")) }
            return rows
        }
    }

    @Test func aCallThatOnlyWaitedHasNoEntryAndOneThatGotAResultHasOneWithItsWait() throws {
        let api = try APIServer { [routes] _ in [routes] }
        let secret = try api.keySecret(token: try api.accountToken())

        let waited = api.loopback.connect()
        api.get(waited, "/test/things/a?wait=2", token: secret)
        api.loopback.pump(rounds: 5)
        api.loopback.advance(by: .seconds(3))
        #expect(api.loopback.response(waited)?.bodyText == #"{"status":"pending"}"#)
        #expect(api.records.last?.ending == .onlyWaited)
        #expect(try entries(api).isEmpty)

        let answered = api.loopback.connect()
        let cameAt = api.wall.wallMillis
        api.get(answered, "/test/things/a?wait=30", token: secret)
        api.loopback.pump(rounds: 5)
        api.loopback.advance(by: .milliseconds(4200))
        api.wall.advance(by: .milliseconds(4200))
        routes.results["a"] = "done"
        api.handler.wake(WaitingRoutes.topic("a"))
        #expect(api.loopback.response(answered)?.bodyText == #"{"status":"done"}"#)
        let found = try entries(api)
        #expect(found.count == 1)
        let duration = try #require(found.first.flatMap { Int64($0.split(separator: " ").last ?? "") })
        #expect(found.first?.hasPrefix("GET /test/things/{thing_id} ok ") == true)
        #expect((4200...4300).contains(duration))
        // `at` is when the request came, not when its answer went out.
        #expect(try ats(api) == [cameAt])
    }

    /// A client that goes away mid-wait got no answer and no result: no entry.
    @Test func aClientThatWentAwayMidWaitHasNoEntry() throws {
        let api = try APIServer { [routes] _ in [routes] }
        let secret = try api.keySecret(token: try api.accountToken())
        var client: TestClient? = api.loopback.connect()
        api.get(client!, "/test/things/a?wait=50", token: secret)
        api.loopback.pump(rounds: 5)
        client = nil
        api.loopback.pump { api.handler.waitingCount == 0 }
        #expect(api.records.last?.ending == .clientWentAway)
        #expect(try entries(api).isEmpty)
    }

    /// The 33rd waiting call of a key is refused with 429, and that refusal has an entry.
    @Test func aWaitingCallRefusedAbove32HasAnEntry() throws {
        let api = try APIServer { [routes] _ in [routes] }
        let secret = try api.keySecret(token: try api.accountToken())
        var clients: [TestClient] = []
        for _ in 0..<32 {
            let client = api.loopback.connect()
            api.get(client, "/test/things/a?wait=50", token: secret)
            clients.append(client)
        }
        api.loopback.pump { api.handler.waitingCount == 32 }
        let extra = api.loopback.connect()
        api.get(extra, "/test/things/a?wait=50", token: secret)
        #expect(api.loopback.response(extra)?.status == 429)
        #expect(try entries(api) == ["GET /test/things/{thing_id} error 0"])
    }
}
