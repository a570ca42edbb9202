@testable import SQLite
import Testing

@Suite struct StatementCacheTests {
    @Test(arguments: StoreKind.allCases)
    func fullCacheStartsOverWithoutBreakingHeldStatements(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let held = try db.statement("SELECT 0")
        for number in 1..<StatementCache.limit {
            _ = try db.statement("SELECT \(number)")
        }
        #expect(try db.statement("SELECT 0") === held)
        // One more distinct SQL text: the cache starts over.
        _ = try db.statement("SELECT -1")
        let fresh = try db.statement("SELECT 0")
        #expect(fresh !== held)
        #expect(try held.step())
        #expect(held.int(0) == 0)
        #expect(try db.statement("SELECT 0") === fresh)
    }

    @Test(arguments: StoreKind.allCases)
    func uncachedStatementOutlivingCloseDoesNotCrash(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let uncached = try db.prepare("SELECT x FROM t")
        db.close()
        #expect(try uncached.step())
        #expect(uncached.int(0) == 1)
        #expect(try uncached.step() == false)
    }
}
