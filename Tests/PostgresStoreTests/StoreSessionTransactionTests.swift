import PostgresStore
import Relaydeck
import SQLite
import Testing

/// Transactions, savepoints and errors through a store session, the same in both dialects.
@Suite struct StoreSessionTransactionTests {
    static let dialects = StoreSessionTests.dialects

    @Test(arguments: dialects)
    func aCommitKeepsItsRowsAndARollbackUndoesThem(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let ids = try harness.run { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.commit()
            try await db.begin()
            try await db.run(ItemsTable.insertID, 2)
            #expect(try await db.count("SELECT count(*) AS n FROM items") == 2)
            try await db.rollback()
            return try await db.rows(ItemsTable.ids) { try $0.int("id") }
        }
        #expect(ids == [1])
    }

    @Test(arguments: dialects)
    func aSavepointRolledBackUndoesOnlyItsOwnRowsAndTheTransactionGoesOn(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let ids = try harness.run { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 2)
            try await db.run(ItemsTable.insertID, 3)
            try await db.rollbackToSavepoint()
            try await db.run(ItemsTable.insertID, 4)
            // Nested: the inner one undone, the outer one kept.
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 5)
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 6)
            try await db.rollbackToSavepoint()
            try await db.run(ItemsTable.insertID, 7)
            try await db.releaseSavepoint()
            try await db.commit()
            return try await db.rows(ItemsTable.ids) { try $0.int("id") }
        }
        #expect(ids == [1, 4, 5, 7])
    }

    /// PostgreSQL refuses every statement of a transaction after one failed, until a ROLLBACK
    /// TO; SQLite goes on by itself. Through a savepoint both go on alike.
    @Test(arguments: dialects)
    func aStatementThatFailedInASavepointIsUndoneWithItAndTheTransactionCommits(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let (failed, ids) = try harness.run { db in
            try await db.begin()
            try await db.run(ItemsTable.insertID, 1)
            try await db.savepoint()
            try await db.run(ItemsTable.insertID, 2)
            var failed: (any Error)?
            do { try await db.run(ItemsTable.insertID, 1) } catch { failed = error }
            try await db.rollbackToSavepoint()
            try await db.run(ItemsTable.insertID, 3)
            try await db.commit()
            return (failed, try await db.rows(ItemsTable.ids) { try $0.int("id") })
        }
        #expect(failed.map { isConstraintViolation($0, dialect) } == true)
        #expect(ids == [1, 3])
    }

    @Test(arguments: dialects)
    func aUniqueViolationThrowsTheDialectsConstraintError(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let (uniqueCode, primaryKey, kept) = try harness.run { db in
            try await db.run("INSERT INTO items (id, code) VALUES ($1, $2)", 1, "x")
            var errors: [(any Error)?] = [nil, nil]
            do { try await db.run("INSERT INTO items (id, code) VALUES ($1, $2)", 2, "x") } catch { errors[0] = error }
            do { try await db.run(ItemsTable.insertID, 1) } catch { errors[1] = error }
            return (errors[0], errors[1], try await db.count("SELECT count(*) AS n FROM items"))
        }
        #expect(uniqueCode.map { isConstraintViolation($0, dialect) } == true, "\(String(describing: uniqueCode))")
        #expect(primaryKey.map { isConstraintViolation($0, dialect) } == true, "\(String(describing: primaryKey))")
        #expect(kept == 1)
    }

    @Test(arguments: dialects)
    func aSyntaxErrorThrowsTheDialectsErrorAndTheSessionGoesOn(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let (error, count) = try harness.run { db in
            var error: (any Error)?
            do { try await db.run("SELEC id FROM items") } catch let thrown { error = thrown }
            return (error, try await db.count("SELECT count(*) AS n FROM items"))
        }
        #expect(error.map { isNativeError($0, dialect) && !isConstraintViolation($0, dialect) } == true,
                "\(String(describing: error))")
        #expect(count == 0)
    }

    /// PostgreSQL would only warn of a BEGIN inside a transaction or a COMMIT outside one; the
    /// session refuses each in both, before any SQL.
    @Test(arguments: dialects)
    func transactionStepsOutOfPlaceAreRefusedAlike(_ dialect: StoreDialect) throws {
        let harness = try SessionHarness.withItems(dialect)
        let kinds = try harness.run { db in
            var kinds: [StoreSessionError.Kind?] = []
            func refused(_ step: () async throws -> Void) async {
                kinds.append(await #expect(throws: StoreSessionError.self) { try await step() }?.kind)
            }
            await refused { try await db.commit() }
            await refused { try await db.rollback() }
            await refused { try await db.savepoint() }
            try await db.begin()
            await refused { try await db.begin() }
            await refused { try await db.releaseSavepoint() }
            await refused { try await db.rollbackToSavepoint() }
            try await db.savepoint()
            try await db.releaseSavepoint()
            await refused { try await db.releaseSavepoint() }
            try await db.rollback()
            return kinds
        }
        #expect(kinds == [.notInTransaction, .notInTransaction, .notInTransaction, .alreadyInTransaction,
                          .noSavepoint, .noSavepoint, .noSavepoint])
    }
}
