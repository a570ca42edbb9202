@testable import API
import EventLoop
import HTTPTestSupport
import Relaydeck
import SQLite
import Testing
import TestSupport

/// Issue 19's hole: a timer due in the same turn as a write request ran before the turn's
/// COMMIT, on the same connection, so it read rows that were not committed (a push drain could
/// send a push, a wait's deadline answer, for a change that a failing COMMIT then took back).
/// Now every timer runs after the turn is committed.
@Suite struct TurnOrderTests {
    private let directory = TemporaryDirectory()

    @Test func aTimerDueInTheTurnOfAWriteSeesOnlyWhatIsCommitted() throws {
        let path = directory.file("relaydeck.db")
        let api = try APIServer(storePath: path)
        let secret = try api.keySecret(token: try api.accountToken())
        // A second connection to the file sees only committed rows.
        let outside = try Database(path: path)
        defer { outside.close() }
        func count(_ db: Database) throws -> Int64 {
            let statement = try db.statement("SELECT count(*) FROM tasks")
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int64(0)
        }
        let client = api.loopback.connect()
        let body = #"{"title":"Ship it"}"#
        client.send("POST /v1/tasks HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        var seen: (loop: Int64, committed: Int64)?
        let timer = api.loopback.loop.makeTimer {
            seen = try? (api.store.read(count), count(outside))
        }
        // Due now: it fires in the same iteration that reads the request.
        api.loopback.loop.reschedule(timer, at: api.loopback.loop.now)
        api.loopback.loop.runOnce(maxWait: .milliseconds(1000))
        let observed = try #require(seen)
        #expect(observed.loop == 1, "the request was not handled in the timer's turn")
        #expect(observed.committed == observed.loop, "the timer read a row that was not committed")
        #expect(api.loopback.response(client)?.status == 201)
    }
}
