import EventLoop
import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing

/// How a session's task waits: never with SQLite, on the loop with PostgreSQL, where other
/// tasks go on meanwhile and a connection that is gone ends the wait with its error.
@Suite struct StoreSessionAwaitTests {
    /// What the tasks of a test did, in order.
    final class Steps {
        var list: [String] = []
        var ended = 0
    }

    @Test func aSQLiteSessionsTaskHasEndedWhenStartTaskReturns() throws {
        let harness = try SessionHarness.withItems(.sqlite)
        let session = harness.session
        let steps = Steps()
        harness.loop.startTask {
            do {
                try await session.begin()
                try await session.run(ItemsTable.insertID, 1)
                try await session.savepoint()
                try await session.releaseSavepoint()
                try await session.commit()
                steps.list.append("rows: \(try await session.count("SELECT count(*) AS n FROM items"))")
            } catch {
                steps.list.append("failed: \(error)")
            }
        }
        #expect(steps.list == ["rows: 1"])
    }

    /// The second session holds a lock the first one's statement waits for: the second's
    /// statements are answered meanwhile, and the first's once the lock is given back.
    @Test func twoPostgresSessionsAwaitedFromTwoTasksAtOnceBothFinish() throws {
        let driver = try StoreTestDriver()
        let database = try driver.createDatabase()
        let first = PostgresSession(try driver.open(database))
        let second = PostgresSession(try driver.open(database))
        let steps = Steps()
        let waiting = "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        driver.loop.startTask {
            do {
                try await second.begin()
                try await second.run("SELECT pg_advisory_xact_lock(7)")
                steps.list.append("second holds the lock")
                driver.loop.startTask {
                    do {
                        try await first.run("SELECT pg_advisory_lock(7)")
                        steps.list.append("first got the lock")
                    } catch {
                        steps.list.append("first failed: \(error)")
                    }
                    steps.ended += 1
                }
                var waiters = 0
                for _ in 0..<5_000 where waiters == 0 { waiters = try await second.count(waiting) }
                steps.list.append("second answered while \(waiters) waited")
                try await second.commit()
                steps.list.append("second committed")
            } catch {
                steps.list.append("second failed: \(error)")
            }
            steps.ended += 1
        }
        driver.run { steps.ended == 2 }
        // Which of the last two comes first is the order of the two sockets' events.
        #expect(Array(steps.list.prefix(2)) == ["second holds the lock", "second answered while 1 waited"])
        #expect(Set(steps.list.dropFirst(2)) == ["second committed", "first got the lock"])
    }

    @Test func aPostgresSessionWhoseConnectionWasClosedThrowsWithinOneTurn() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        let session = PostgresSession(connection)
        connection.close()
        var outcome: Result<Int, any Error>?
        driver.loop.startTask {
            do { outcome = .success(try await session.count("SELECT 1 AS n")) } catch { outcome = .failure(error) }
        }
        driver.loop.runOnce(maxWait: .zero)
        let error = try #require(outcome?.failure)
        #expect((error as? PostgresError)?.kind == .closed, "\(error)")
    }

    @Test func aStatementInFlightWhenTheServerEndsTheConnectionThrows() throws {
        let driver = try StoreTestDriver()
        let database = try driver.createDatabase()
        let connection = try driver.open(database)
        let session = PostgresSession(connection)
        let other = try driver.open(database)
        var outcome: Result<Int, any Error>?
        driver.loop.startTask {
            do { outcome = .success(try await session.run("SELECT pg_sleep(60)")) } catch { outcome = .failure(error) }
        }
        let backend = try #require(connection.processID)
        _ = try driver.query(other, "SELECT pg_terminate_backend($1)", [.integer(Int64(backend))])
        driver.run { outcome != nil }
        let error = try #require(outcome?.failure)
        let postgresError = try #require(error as? PostgresError, "\(error)")
        // Not the batch's deadline (30 s): the server's end of the connection.
        #expect(postgresError.kind != .timedOut)
        #expect(postgresError.needsNewConnection, "\(postgresError)")
    }
}
