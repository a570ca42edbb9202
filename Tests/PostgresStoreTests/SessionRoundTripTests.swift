import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing

/// The round trips a PostgreSQL session makes: BEGIN waits for the transaction's first
/// statement and goes in its batch, and a transaction that ran nothing sends nothing; what
/// the statements do and how they fail is the same as with a BEGIN of its own
/// (`StoreSessionTransactionTests`).
@Suite struct SessionRoundTripTests {
    /// The session's connection, whose batches the tests count.
    static func connection(_ harness: SessionHarness) throws -> PostgresConnection {
        try #require(harness.session as? PostgresSession).connection
    }

    @Test func aTransactionOfOneStatementIsTwoRoundTrips() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let connection = try Self.connection(harness)
        let before = connection.batchesSent
        try harness.run { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.commit()
        }
        #expect(connection.batchesSent - before == 2)
        #expect(try harness.run { try await $0.rows(ItemsTable.ids) { try $0.int("id") } } == [1])
    }

    @Test func aTransactionThatRanNothingSendsNothing() throws {
        let harness = try SessionHarness.withItems(.postgres)
        let connection = try Self.connection(harness)
        let before = connection.batchesSent
        try harness.run { db in
            try await db.begin()
            try await db.commit()
            try await db.begin()
            try await db.rollback()
        }
        #expect(connection.batchesSent == before)
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
        let connection = try Self.connection(harness)
        let before = connection.batchesSent
        let ids = try harness.run { db in
            try await db.begin()
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 1)
            try await db.rollbackToSavepoint()
            try await db.run(ItemsTable.insertID, 2)
            try await db.commit()
            return try await db.rows(ItemsTable.ids) { try $0.int("id") }
        }
        // SAVEPOINT with BEGIN, the insert, ROLLBACK TO with RELEASE, the insert, COMMIT, the read.
        #expect(connection.batchesSent - before == 6)
        #expect(ids == [2])
    }
}
