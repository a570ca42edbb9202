@testable import API
import Clock
import EventLoop
import HTTPTestSupport
import Relaydeck
import SQLite
import Testing
import TestSupport

/// Group commit through the turn's `UnitOfWork`: the writes of one loop turn share one
/// transaction; their changes reach the hub only after its COMMIT, in the order the writes
/// ran, and a failed COMMIT answers every write of the turn with its failure (`503` when the
/// store is unavailable, `500` for a defect such as the broken constraint below) and keeps
/// and publishes nothing of any of them.
@Suite struct GroupCommitTests {
    let api: APIServer
    let secret: String
    /// Every change the hub published, in order.
    private let seen = Seen()

    final class Seen {
        var changes: [Change] = []
        var committedWhenSeen: [Bool] = []
    }

    init() throws {
        api = try APIServer()
        secret = try api.keySecret(token: try api.accountToken())
        let store = api.store
        api.handler.context.services.hub.subscribe { [seen] change in
            seen.changes.append(change)
            seen.committedWhenSeen.append(!((try? store.read { $0.isInTransaction }) ?? true))
        }
    }

    /// Sends one `POST /v1/tasks` on each client, then runs one iteration of the loop, which
    /// reads them all: one turn.
    func createInOneTurn(_ titles: [String]) -> [TestClient] {
        let clients = titles.map { _ in api.loopback.connect() }
        for (client, title) in zip(clients, titles) {
            let body = #"{"title":"\#(title)"}"#
            client.send("POST /v1/tasks HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(secret)\r\n" +
                        "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        api.loopback.loop.runOnce(maxWait: .milliseconds(1000))
        return clients
    }

    func titles(_ sql: String) throws -> [String] {
        try api.store.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            var titles: [String] = []
            while try statement.step() { titles.append(statement.string(0) ?? "") }
            return titles
        }
    }

    @Test func theChangesOfTheTurnsWritesArePublishedInTheirOrderAfterItsCommit() throws {
        let before = seen.changes.count
        let clients = createInOneTurn(["One", "Two", "Three"])
        // All three were handled in that turn, before its COMMIT.
        #expect(seen.changes.count == before + 3)
        for client in clients {
            #expect(api.loopback.response(client)?.status == 201)
        }
        let published = seen.changes[before...].compactMap { change -> String? in
            guard case .taskCreated(let task) = change.event else { return nil }
            return task.title
        }
        // The order the writes ran in the transaction (each takes the next change number).
        #expect(published == (try titles("SELECT title FROM tasks ORDER BY created_seq")))
        #expect(published.count == 3)
        #expect(seen.committedWhenSeen[before...].allSatisfy { $0 })
    }

    @Test func aFailedCommitAnswersEveryWriteOfTheTurnWithItsFailureAndPublishesNothing() throws {
        // A foreign key checked only at COMMIT, broken by a task titled `poison`.
        try api.store.write { db in
            try db.execute("""
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(parent REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                CREATE TRIGGER poison AFTER INSERT ON tasks WHEN NEW.title = 'poison'
                BEGIN INSERT INTO child VALUES (1); END;
                """)
        }
        let before = seen.changes.count
        let clients = createInOneTurn(["Ship it", "poison"])
        // Each gets the COMMIT's failure: a constraint is no outside condition, so `500`.
        for client in clients {
            let answer = api.loopback.response(client)
            #expect(answer?.status == 500)
            #expect(answer?.bodyText.contains(#""code":"internal""#) == true)
        }
        #expect(seen.changes.count == before)
        #expect(try titles("SELECT title FROM tasks").isEmpty)
        // The next turn starts clean: its write commits and publishes only its own change.
        let next = createInOneTurn(["After"])
        #expect(api.loopback.response(next[0])?.status == 201)
        #expect(seen.changes[before...].map(\.event.name) == ["task.created"])
        #expect(try titles("SELECT title FROM tasks") == ["After"])
    }
}
