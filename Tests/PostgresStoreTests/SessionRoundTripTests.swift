import Postgres
@testable import PostgresStore
import Relaydeck
import SQLite
import Testing

/// The round trips a PostgreSQL session makes: BEGIN waits for the transaction's first
/// statement and goes in its batch, a transaction that ran nothing sends nothing, and a last
/// statement may go with its COMMIT; what the statements do and how they fail is the same as
/// with a BEGIN and a COMMIT of their own (`StoreSessionTransactionTests`).
@Suite struct SessionRoundTripTests {
    /// The session's connection, whose batches the tests count.
    static func connection(_ harness: SessionHarness) throws -> PostgresConnection {
        try #require(harness.session as? PostgresSession).connection
    }

    /// The batches `body` sent on the session's connection, and what it returned.
    static func batches<T>(_ harness: SessionHarness, _ body: @escaping (any StoreSession) async throws -> T) throws -> (Int, T) {
        let connection = try Self.connection(harness)
        let before = connection.batchesSent
        let value = try harness.run(body)
        return (connection.batchesSent - before, value)
    }

    @Test func aTransactionOfOneStatementIsTwoRoundTrips() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let (batches, _) = try Self.batches(harness) { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.commit()
        }
        #expect(batches == 2)
        #expect(try harness.run { try await $0.rows(ItemsTable.ids) { try $0.int("id") } } == [1])
    }

    @Test func aTransactionThatRanNothingSendsNothing() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let (batches, _) = try Self.batches(harness) { db in
            try await db.begin()
            try await db.commit()
            try await db.begin()
            try await db.rollback()
        }
        #expect(batches == 0)
    }

    /// The first statement's own error, not BEGIN's; the transaction it failed is open still,
    /// refusing statements until its ROLLBACK, after which the next one works.
    @Test func aFirstStatementThatFailsThrowsItsOwnErrorAndItsTransactionRollsBack() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let (failed, refused, ids) = try harness.run { db in
            try await db.run(ItemsTable.insertID, 1)
            try await db.begin()
            var errors: [PostgresError?] = [nil, nil]
            do { try await db.run(ItemsTable.insertID, 1) } catch { errors[0] = error as? PostgresError }
            do { try await db.run(ItemsTable.insertID, 2) } catch { errors[1] = error as? PostgresError }
            try await db.rollback()
            try await db.begin()
            try await db.run(ItemsTable.insertID, 3)
            try await db.commit()
            return (errors[0], errors[1], try await db.rows(ItemsTable.ids) { try $0.int("id") })
        }
        #expect(failed?.sqlState == "23505", "\(String(describing: failed))")
        // In a failed transaction: 25P02 until the ROLLBACK.
        #expect(refused?.sqlState == "25P02", "\(String(describing: refused))")
        #expect(ids == [1, 3])
    }

    /// A savepoint is a statement like any: the first of a transaction carries its BEGIN.
    @Test func aSavepointFirstInItsTransactionCarriesTheBegin() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let (batches, ids) = try Self.batches(harness) { db in
            try await db.begin()
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 1)
            try await db.rollbackToSavepoint()
            try await db.run(ItemsTable.insertID, 2)
            try await db.commit()
            return try await db.rows(ItemsTable.ids) { try $0.int("id") }
        }
        // BEGIN, SAVEPOINT and the insert; ROLLBACK TO with RELEASE; the insert; COMMIT; the read.
        #expect(batches == 5)
        #expect(ids == [2])
    }

    /// A savepoint's SAVEPOINT and RELEASE wait for the next statement (the RELEASE for the
    /// COMMIT, at the latest): nested writes cost no round trip of their own.
    @Test func aSavepointAndItsReleaseGoWithTheNextStatements() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let (batches, _) = try Self.batches(harness) { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 2)
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 3)
            try await db.releaseSavepoint()
            try await db.releaseSavepoint()
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 4)
            try await db.releaseSavepoint()
            try await db.commit()
        }
        // Four inserts and the COMMIT; the savepoints went in their batches.
        #expect(batches == 5)
        #expect(try harness.run { try await $0.rows(ItemsTable.ids) { try $0.int("id") } } == [1, 2, 3, 4])
    }

    /// A savepoint that ran nothing is never sent: neither its SAVEPOINT nor its end.
    @Test func aSavepointThatRanNothingSendsNothing() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let (batches, _) = try Self.batches(harness) { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.savepoint()
            try await db.rollbackToSavepoint()
            try await db.savepoint()
            try await db.releaseSavepoint()
            try await db.commit()
        }
        #expect(batches == 2)
        #expect(try harness.run { try await $0.rows(ItemsTable.ids) { try $0.int("id") } } == [1])
    }

    /// A statement that fails inside a savepoint that went with it: the ROLLBACK TO mends the
    /// transaction, which goes on and commits what ran outside the savepoint; a RELEASE still
    /// due when the transaction rolls back is dropped with it.
    @Test func aFailureInsideASavepointSentWithItIsRolledBackAlone() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let (failed, ids) = try harness.run { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.savepoint()
            var failed: PostgresError?
            do { try await db.run(ItemsTable.insertID, 1) } catch { failed = error as? PostgresError }
            try await db.rollbackToSavepoint()
            try await db.run(ItemsTable.insertID, 2)
            try await db.commit()
            try await db.begin()
            try await db.run(ItemsTable.insertID, 5)
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 6)
            try await db.releaseSavepoint()
            try await db.rollback()
            return (failed, try await db.rows(ItemsTable.ids) { try $0.int("id") })
        }
        #expect(failed?.sqlState == "23505", "\(String(describing: failed))")
        #expect(ids == [1, 2])
    }

    @Test func aLastStatementGoesInOneBatchWithItsCommit() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let session = try #require(harness.session as? PostgresSession)
        let (batches, _) = try Self.batches(harness) { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await session.commit(after: ItemsTable.insertID, [.integer(2)])
        }
        #expect(batches == 2)
        #expect(try harness.run { try await $0.rows(ItemsTable.ids) { try $0.int("id") } } == [1, 2])
    }

    /// The COMMIT is skipped with the failed statement: the transaction is open still, and its
    /// ROLLBACK undoes it.
    @Test func aLastStatementThatFailsLeavesItsTransactionToTheRollback() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let session = try #require(harness.session as? PostgresSession)
        let (failed, ids) = try harness.run { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            var failed: PostgresError?
            do { try await session.commit(after: ItemsTable.insertID, [.integer(1)]) } catch { failed = error as? PostgresError }
            try await db.rollback()
            return (failed, try await db.rows(ItemsTable.ids) { try $0.int("id") })
        }
        #expect(failed?.sqlState == "23505", "\(String(describing: failed))")
        #expect(ids == [])
    }

    /// A deferred constraint fails the COMMIT itself, after the statement: the transaction has
    /// ended, so a ROLLBACK is refused as out of place, and nothing was kept.
    @Test func aCommitThatFailsAfterItsLastStatementEndsTheTransaction() throws {
        let harness = try SessionHarness(.postgres)
        let session = try #require(harness.session as? PostgresSession)
        let insert = "INSERT INTO deferred (id) VALUES ($1)"
        let (failed, rollback, count) = try harness.run { db in
            try await db.execute("CREATE TABLE deferred (id BIGINT, CONSTRAINT deferred_once UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)")
            try await db.begin()
            try await db.run(insert, 1)
            var failed: PostgresError?
            do { try await session.commit(after: insert, [.integer(1)]) } catch { failed = error as? PostgresError }
            var rollback: StoreSessionError?
            do { try await db.rollback() } catch { rollback = error as? StoreSessionError }
            return (failed, rollback, try await db.count("SELECT count(*) AS n FROM deferred"))
        }
        #expect(failed?.sqlState == "23505", "\(String(describing: failed))")
        #expect(failed?.constraint == "deferred_once")
        #expect(rollback?.kind == .notInTransaction)
        #expect(count == 0)
    }

    /// The change feed's row, a recorded write's last statement, costs no round trip: it goes
    /// with the COMMIT.
    @Test func aRecordedWritesFeedRowGoesWithItsCommit() throws {
        let feed = try FeedHarness()
        let store = try feed.driver.sessionStore(feed.database, connections: 1)
        let connection = try #require(store.slots[0].link?.connection)
        let hub = EventHub()
        func batches(recording n: Int) throws -> Int {
            let before = connection.batchesSent
            try feed.run {
                try await store.writing(hub: hub) { db, turn in
                    _ = try await db.count("SELECT 1 AS n")
                    try await turn.record(FeedHarness.change(n))
                }
            }
            return connection.batchesSent - before
        }
        let unfed = try batches(recording: 1)
        store.feedNode = "node-a"
        let fed = try batches(recording: 2)
        #expect(unfed == 2)
        #expect(fed == unfed)
        #expect(try feed.read(after: 0, on: try feed.session()).changes == [FeedHarness.change(2)])
    }
}
