import SQLite
import Testing

private struct BodyFailed: Error, Equatable {}

@Suite struct TransactionTests {
    private func openWithTable(_ store: TestStore) throws -> Database {
        let db = try store.open()
        try db.execute("CREATE TABLE t(x TEXT)")
        return db
    }

    private func insert(_ db: Database, _ value: String) throws {
        try db.statement("INSERT INTO t VALUES (?)").run(.text(value))
    }

    private func values(_ db: Database) throws -> [String] {
        let select = try db.statement("SELECT x FROM t ORDER BY rowid")
        var result: [String] = []
        while try select.step() { result.append(select.string(0) ?? "NULL") }
        return result
    }

    @Test(arguments: StoreKind.allCases)
    func commitsTheBodyAndReturnsItsValue(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        let result = try db.transaction {
            #expect(db.isInTransaction)
            try insert(db, "a")
            try insert(db, "b")
            return 17
        }
        #expect(result == 17)
        #expect(db.isInTransaction == false)
        #expect(try values(db) == ["a", "b"])
    }

    @Test(arguments: StoreKind.allCases, [Database.TransactionKind.deferred, .immediate, .exclusive])
    func everyKindCommits(_ kind: StoreKind, _ transactionKind: Database.TransactionKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        try db.transaction(transactionKind) { try insert(db, "a") }
        #expect(try values(db) == ["a"])
    }

    @Test(arguments: StoreKind.allCases)
    func throwingBodyRollsBackAndRethrows(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        try insert(db, "before")
        #expect(throws: BodyFailed()) {
            try db.transaction {
                try insert(db, "lost")
                throw BodyFailed()
            }
        }
        #expect(db.isInTransaction == false)
        #expect(try values(db) == ["before"])
        try db.transaction { try insert(db, "after") }
        #expect(try values(db) == ["before", "after"])
    }

    @Test(arguments: StoreKind.allCases)
    func failingCommitRollsBack(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try store.open()
        // A deferred foreign key is only checked at COMMIT, so COMMIT itself fails.
        try db.execute("""
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(parent REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let error = #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.execute("INSERT INTO child VALUES (1)")
            }
        }
        #expect(error?.code == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        #expect(error?.sql == "COMMIT")
        #expect(db.isInTransaction == false)
        #expect(try db.count("child") == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func bodyThatEndsTheTransactionIsReportedNotCommitted(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        let error = #expect(throws: SQLiteError.self) {
            try db.transaction {
                try insert(db, "gone")
                try db.execute("ROLLBACK")
            }
        }
        #expect(error?.code == 516)  // SQLITE_ABORT_ROLLBACK
        #expect(try values(db) == [])
        #expect(db.isInTransaction == false)
    }

    @Test(arguments: StoreKind.allCases)
    func nestedCallsCommitWithTheOutermost(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        try db.transaction {
            try insert(db, "outer")
            try db.transaction {
                try insert(db, "inner")
                try db.transaction(.exclusive) { try insert(db, "innermost") }
            }
            #expect(db.isInTransaction)
        }
        #expect(try values(db) == ["outer", "inner", "innermost"])
        #expect(db.isInTransaction == false)
    }

    @Test(arguments: StoreKind.allCases)
    func failedNestedCallUndoesOnlyItsOwnChanges(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        try db.transaction {
            try insert(db, "outer")
            #expect(throws: BodyFailed()) {
                try db.transaction {
                    try insert(db, "inner")
                    throw BodyFailed()
                }
            }
            #expect(db.isInTransaction)
            try insert(db, "outer again")
        }
        #expect(try values(db) == ["outer", "outer again"])
    }

    @Test(arguments: StoreKind.allCases)
    func failingOuterBodyUndoesCompletedNestedCalls(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        #expect(throws: BodyFailed()) {
            try db.transaction {
                try db.transaction { try insert(db, "inner") }
                throw BodyFailed()
            }
        }
        #expect(try values(db) == [])
        // The depth bookkeeping is back at zero: this is a real transaction again.
        try db.transaction { try insert(db, "later") }
        #expect(try values(db) == ["later"])
    }

    @Test(arguments: StoreKind.allCases)
    func nestedCallAfterTheTransactionEndedDoesNotCommitOnItsOwn(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        var innerCode: Int32?
        let outer = #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.execute("ROLLBACK")
                do {
                    try db.transaction { try insert(db, "orphan") }
                } catch let error as SQLiteError {
                    innerCode = error.code
                }
            }
        }
        #expect(innerCode == 516)  // SQLITE_ABORT_ROLLBACK
        #expect(outer?.code == 516)
        #expect(try values(db) == [])
        #expect(db.isInTransaction == false)
    }

    @Test(arguments: StoreKind.allCases)
    func beginInsideAnOutsideTransactionFails(_ kind: StoreKind) throws {
        let store = TestStore(kind)
        let db = try openWithTable(store)
        try db.execute("BEGIN")
        let error = #expect(throws: SQLiteError.self) {
            try db.transaction { try insert(db, "x") }
        }
        #expect(error?.message == "cannot start a transaction within a transaction")
        try db.execute("ROLLBACK")
        #expect(try values(db) == [])
    }
}
