import Clock
import EventLoop
import Postgres
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing
import TestSupport

/// `PostgresSessionStore`: a service written against `StoreSession` (`LiveActivities`) on a
/// real PostgreSQL database as on SQLite, bodies taking a pool of one in turn (larger pools:
/// `PoolTests`), a write undone when its body throws, and a stopped store answering with the
/// store's unavailability (a database lost and found again: `ReconnectTests`, `FailoverTests`).
@Suite struct PostgresSessionStoreTests {
    /// The filled store's rows copied into a fresh database, and a session store on it (with a
    /// connection of its own: `connection` is the test's).
    final class Filled {
        let directory = TemporaryDirectory()
        let driver: StoreTestDriver
        let connection: PostgresConnection
        let store: PostgresSessionStore
        let database: String

        init(connections: Int = PostgresSessionStore.defaultConnections) throws {
            let file = try FilledStore.make(in: directory)
            driver = try StoreTestDriver()
            database = try driver.createDatabase()
            connection = try driver.open(database)
            _ = try driver.migrate(connection).get()
            _ = try CopyTests.copy(file, driver, connection).result.get()
            store = try driver.sessionStore(database, connections: connections)
        }

        /// `body` as a task on the loop; its value or its error once it ended.
        func run<T>(_ body: @escaping () async throws -> T) throws -> T {
            var outcome: Result<T, any Error>?
            driver.loop.startTask {
                do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            }
            driver.loop.run(until: { outcome != nil }, within: .seconds(60))
            return try #require(outcome, "the task did not end within 60 s").get()
        }

        func count(_ sql: String) throws -> Int64 {
            try driver.query(connection, sql)[0].int64("n")
        }
    }

    static let token = PushToken(String(repeating: "e5f6", count: 20))!

    @Test func liveActivitiesRegisterAndUnregisterOnPostgreSQL() throws {
        let db = try Filled()
        let live = LiveActivities(store: db.store, clock: ManualClock())
        let found = try db.run {
            try await live.register(accountID: "acc_1", taskID: "tsk_2", deviceID: "dev_1", pushToken: Self.token)
            return try await live.registrations(accountID: "acc_1", taskID: "tsk_2")
        }
        #expect(found.map(\.deviceID) == ["dev_1"])
        #expect(found.map(\.pushToken) == [Self.token.value])
        let after = try db.run {
            try await live.unregister(accountID: "acc_1", taskID: "tsk_2", deviceID: "dev_1")
            try await live.unregister(accountID: "acc_1", taskID: "tsk_2", deviceID: "dev_1")
            return try await live.registrations(accountID: "acc_1", taskID: "tsk_2")
        }
        #expect(after.isEmpty)
    }

    @Test func liveActivitiesRefusalsOnPostgreSQLWriteNothing() throws {
        let db = try Filled()
        let live = LiveActivities(store: db.store, clock: ManualClock())
        let before = try db.count("SELECT count(*) AS n FROM live_activities")
        for (task, device, message) in [("tsk_3", "dev_1", "Task not found."), ("tsk_1", "dev_9", "Device not found.")] {
            #expect(throws: DomainError.notFound(message)) {
                try db.run { try await live.register(accountID: "acc_1", taskID: task, deviceID: device, pushToken: Self.token) }
            }
        }
        #expect(try db.count("SELECT count(*) AS n FROM live_activities") == before)
    }

    @Test func bodiesStartedAtOnceTakeAPoolOfOneConnectionInTurn() throws {
        let db = try Filled(connections: 1)
        var seen: [String] = []
        var ended = 0
        for name in ["a", "b", "c"] {
            db.driver.loop.startTask { [store = db.store] in
                do {
                    try await store.writing { session in
                        try await session.run("INSERT INTO web_login_links (token_hash, account_id, expires_at) VALUES ($1, 'acc_1', 1)",
                                              .blob(Array(name.utf8)))
                        // Inside its own transaction: only its own row is new.
                        let count = try await session.count("SELECT count(*) AS n FROM web_login_links")
                        seen.append("\(name) sees \(count)")
                    }
                } catch {
                    seen.append("\(name) failed: \(error)")
                }
                ended += 1
            }
        }
        #expect(db.store.waitingCount == 2)
        db.driver.loop.run(until: { ended == 3 }, within: .seconds(60))
        #expect(seen == ["a sees 2", "b sees 3", "c sees 4"])
        #expect(try db.count("SELECT count(*) AS n FROM web_login_links") == 4)
    }

    @Test func aWriteWhoseBodyThrowsIsRolledBackAndTheNextWorks() throws {
        let db = try Filled()
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.run {
                try await db.store.writing { session in
                    try await session.run("DELETE FROM live_activities")
                    throw Boom()
                }
            }
        }
        // A failed statement is undone with its transaction too.
        #expect(throws: StoreError.self) {
            try db.run {
                try await db.store.writing { session in
                    try await session.run("DELETE FROM live_activities")
                    try await session.run("INSERT INTO nowhere VALUES ($1)", 1)
                }
            }
        }
        #expect(try db.count("SELECT count(*) AS n FROM live_activities") == 1)
        let removed = try db.run { try await db.store.writing { try await $0.run("DELETE FROM live_activities") } }
        #expect(removed == 1)
    }

    /// A read's statements run outside a transaction block, each committed by itself, which
    /// `RateCells.take`'s upsert counts on (one round trip); a write's share one transaction.
    @Test func eachStatementOfAReadIsATransactionOfItsOwnAndAWritesShareOne() throws {
        let db = try Filled(connections: 1)
        let transaction = "SELECT txid_current() AS n"
        let read = try db.run {
            try await db.store.reading { session in
                [try await session.count(transaction), try await session.count(transaction)]
            }
        }
        let written = try db.run {
            try await db.store.writing { session in
                [try await session.count(transaction), try await session.count(transaction)]
            }
        }
        #expect(read[0] != read[1])
        #expect(written[0] == written[1])
    }

    @Test func aStoppedStoreIsUnavailableWithTheStoresRetryAfter() throws {
        let db = try Filled()
        db.store.stop()
        #expect {
            try db.run { try await db.store.reading { try await $0.count("SELECT count(*) AS n FROM tasks") } }
        } throws: { error in
            guard case StoreError.unavailable(let seconds) = error else { return false }
            return seconds == Store.retryAfterSeconds
        }
    }

    @Test func aFailureNamesTheSQLAndStateButNoValue() throws {
        let db = try Filled()
        #expect {
            try db.run { try await db.store.reading { try await $0.count("SELECT count(*) AS n FROM tasks WHERE created_at = $1::bigint", "secret-value") } }
        } throws: { error in
            guard case StoreError.failure(let text) = error else { return false }
            return text.contains("22P02") && text.contains("WHERE created_at = $1::bigint") && !text.contains("secret-value")
        }
    }
}
