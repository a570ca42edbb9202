import EventLoop
import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// `PostgresSessionStore` losing its connection on a real PostgreSQL (its server process ended
/// with `pg_terminate_backend` from another connection, its database missing): the body that
/// held it fails unavailable and runs once, the bodies waiting for it are refused and never
/// run, a body while none is up is refused at once, a connection that refuses writes as a
/// standby does is replaced, and the store connects again by itself, with no body asking. The server stopped and started under a stream of bodies:
/// `FailoverTests`.
@Suite struct ReconnectTests {
    @Test func aBackendKilledMidBodyFailsItUnavailableAndTheStoreReconnectsByItself() throws {
        let harness = try ReconnectHarness()
        var runs = 0
        let outcome = try harness.run {
            try await harness.store.writing { session in
                runs += 1
                try await session.run(ReconnectHarness.insert, 1)
                try await harness.terminate(try await session.count(ReconnectHarness.backendPID))
                try await session.run(ReconnectHarness.insert, 2)
            }
        }
        #expect(isUnavailable(outcome))
        #expect(runs == 1)
        // Nothing asks the store: the loop only turns.
        #expect(harness.loop.run(until: { harness.store.isAvailable }, within: .seconds(5)))
        #expect(harness.changes == [false, true])
        #expect(harness.reasons.map(\.sqlState) == ["57P01"])
        _ = try harness.run { try await harness.store.writing { try await $0.run(ReconnectHarness.insert, 3) } }.get()
        // The killed write's transaction never committed.
        #expect(try harness.marks() == [3])
    }

    @Test func aBackendKilledBetweenBodiesIsReplacedBeforeTheNextBodyAsks() throws {
        let harness = try ReconnectHarness()
        let first = try harness.run {
            try await harness.store.writing { session in
                try await session.run(ReconnectHarness.insert, 1)
                return try await session.count(ReconnectHarness.backendPID)
            }
        }.get()
        let killedAt = harness.loop.now
        try harness.terminateNow(first)
        #expect(harness.loop.run(until: { harness.changes == [false, true] }, within: .seconds(5)))
        #expect(harness.store.isAvailable)
        // The lost connection had served less than 5 s: one wait of 0.1 s, then a connect.
        #expect(harness.loop.now - killedAt < .seconds(2))
        #expect(try #require(harness.store.lastAvailable) >= killedAt)
        let second = try harness.run {
            try await harness.store.writing { session in
                try await session.run(ReconnectHarness.insert, 2)
                return try await session.count(ReconnectHarness.backendPID)
            }
        }.get()
        #expect(second != first)
        #expect(try harness.marks() == [1, 2])
    }

    @Test func bodiesWaitingForAConnectionThatDropsAreRefusedAndNeverRun() throws {
        let harness = try ReconnectHarness()
        var ran: [String] = []
        var outcomes: [String: Result<Void, any Error>] = [:]
        for name in ["holder", "second", "third"] {
            harness.loop.startTask { [store = harness.store] in
                do {
                    try await store.writing { session in
                        ran.append(name)
                        try await session.run(ReconnectHarness.insert, 1)
                        try await harness.terminate(try await session.count(ReconnectHarness.backendPID))
                        try await session.run(ReconnectHarness.insert, 2)
                    }
                    outcomes[name] = .success(())
                } catch {
                    outcomes[name] = .failure(error)
                }
            }
        }
        #expect(harness.store.waitingCount == 2)
        #expect(harness.loop.run(until: { outcomes.count == 3 }, within: .seconds(10)))
        #expect(ran == ["holder"])
        #expect(isUnavailable(outcomes["holder"]) && isUnavailable(outcomes["second"]) && isUnavailable(outcomes["third"]))
        #expect(harness.loop.run(until: { harness.store.isAvailable }, within: .seconds(5)))
        #expect(try harness.marks().isEmpty)
    }

    /// What a connection to a standby answers a write after a failover (25006): the connection
    /// is dropped for a new one, which finds a server that writes.
    @Test func aConnectionThatRefusesWritesAsReadOnlyIsReplaced() throws {
        let harness = try ReconnectHarness()
        let readOnly = try harness.run {
            try await harness.store.reading { session in
                try await session.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                return try await session.count(ReconnectHarness.backendPID)
            }
        }.get()
        let refused = try harness.run { try await harness.store.writing { try await $0.run(ReconnectHarness.insert, 1) } }
        #expect(isUnavailable(refused))
        #expect(harness.loop.run(until: { harness.changes == [false, true] }, within: .seconds(5)))
        #expect(harness.reasons.map(\.sqlState) == ["25006"])
        let writer = try harness.run {
            try await harness.store.writing { session in
                try await session.run(ReconnectHarness.insert, 2)
                return try await session.count(ReconnectHarness.backendPID)
            }
        }.get()
        #expect(writer != readOnly)
        #expect(try harness.marks() == [2])
    }

    /// The connection lost while the server runs the COMMIT (a deferred trigger keeps it
    /// busy): the write answers unavailable, as it does for a COMMIT that the server made
    /// durable before the loss, which a client cannot tell apart.
    @Test func aWriteWhoseCommitIsInFlightWhenTheConnectionDropsAnswersUnavailable() throws {
        let harness = try ReconnectHarness()
        _ = try harness.run {
            try await harness.store.writing { session in
                for statement in Self.slowCommit { try await session.execute(statement) }
            }
        }.get()
        var pid: Int?
        var outcome: Result<Void, any Error>?
        harness.loop.startTask { [store = harness.store] in
            do {
                try await store.writing { session in
                    try await session.run("INSERT INTO slow_marks (id) VALUES ($1)", 1)
                    pid = try await session.count(ReconnectHarness.backendPID)
                }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
        }
        harness.loop.run(until: { pid != nil }, within: .seconds(10))
        let backend = try #require(pid)
        var committing = false
        for _ in 0..<500 where !committing {
            committing = try harness.adminCount(Self.runningCommit, [.integer(Int64(backend))]) == 1
            if !committing { harness.loop.run(until: { false }, within: .milliseconds(10)) }
        }
        #expect(committing)
        try harness.terminateNow(backend)
        #expect(harness.loop.run(until: { outcome != nil }, within: .seconds(10)))
        #expect(isUnavailable(outcome))
    }

    @Test func aStoreWithoutItsDatabaseRefusesBodiesAtOnceAndConnectsOnceItExists() throws {
        let driver = try StoreTestDriver()
        let name = "rd_store_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let store = PostgresSessionStore(connector: try PostgresConnector(settings: driver.settings(database: name), loop: driver.loop),
                                         loop: driver.loop, connections: 2)
        var changes: [Bool] = []
        var reasons: [String?] = []
        store.onAvailabilityChange = { available, reason in
            changes.append(available)
            reasons.append(reason?.sqlState)
        }
        store.start()
        // 1 s: attempts after 0.1, 0.2 and 0.4 s, each refused; told once.
        driver.loop.run(until: { false }, within: .seconds(1))
        #expect(changes == [false])
        #expect(reasons == ["3D000"])
        #expect(!store.isAvailable && store.lastAvailable == nil)

        var ran = false
        var outcome: Result<Int, any Error>?
        driver.loop.startTask {
            do {
                outcome = .success(try await store.reading { session in
                    ran = true
                    return try await session.count("SELECT 1 AS n")
                })
            } catch {
                outcome = .failure(error)
            }
        }
        // Answered before the loop turned again: never parked.
        #expect(isUnavailable(outcome))
        #expect(!ran)

        let admin = try driver.open("postgres", user: "rd_admin")
        _ = try driver.query(admin, "CREATE DATABASE \(name) OWNER rd_scram")
        let created = driver.loop.now
        #expect(driver.loop.run(until: { store.isAvailable }, within: .seconds(10)))
        // The next attempt was due within the wait after 4 failures (1.6 s).
        #expect(driver.loop.now - created < .seconds(3))
        #expect(changes == [false, true])
        var answer: Result<Int, any Error>?
        driver.loop.startTask {
            do { answer = .success(try await store.reading { try await $0.count("SELECT 7 AS n") }) } catch { answer = .failure(error) }
        }
        driver.loop.run(until: { answer != nil }, within: .seconds(10))
        #expect(try answer?.get() == 7)
        store.stop()
        #expect(changes == [false, true, false])
    }

    /// A table whose COMMIT runs a deferred trigger that sleeps 20 s.
    static let slowCommit = [
        "CREATE TABLE slow_marks (id BIGINT PRIMARY KEY)",
        "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(20); RETURN NULL; END $$",
        """
        CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON slow_marks DEFERRABLE INITIALLY DEFERRED \
        FOR EACH ROW EXECUTE FUNCTION slow_commit()
        """,
    ]

    static let runningCommit = "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query = 'COMMIT'"
}
