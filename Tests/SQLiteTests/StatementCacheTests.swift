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

@Suite struct StatementCacheKeyTests {
    /// The key hashes a few words of the text, not all of it: texts of one length that agree
    /// at those places must still be told apart by the whole text.
    @Test func textsAlikeAtTheSampledBytesKeepTheirOwnStatements() throws {
        let db = try TestStore(.memory).open()
        // 41 bytes: the sampled words start at 0, 8, 16, 24 and 33 and are 8 bytes long, so
        // byte 32 is in none of them. The two texts differ only there.
        let first = "SELECT 'abcdefghijklmnopqrstuvwx" + "1" + "yz' AS t"
        let second = "SELECT 'abcdefghijklmnopqrstuvwx" + "2" + "yz' AS t"
        #expect(first.utf8.count == 41 && second.utf8.count == 41)
        var hasher = (Hasher(), Hasher())
        StatementCache.Key(first).hash(into: &hasher.0)
        StatementCache.Key(second).hash(into: &hasher.1)
        #expect(hasher.0.finalize() == hasher.1.finalize())
        let one = try db.statement(first)
        let two = try db.statement(second)
        #expect(one !== two)
        #expect(try db.statement(first) === one)
        #expect(try db.statement(second) === two)
        #expect(try two.step())
        #expect(two.string(0) == "abcdefghijklmnopqrstuvwx2yz")
    }

    @Test func aTextBuiltAtRunTimeFindsTheStatementOfTheSameText() throws {
        let db = try TestStore(.memory).open()
        let constant = "SELECT 42 AS answer, 'x' AS label"
        let held = try db.statement(constant)
        let built = ["SELECT 42 AS answer,", "'x' AS label"].joined(separator: " ")
        #expect(try db.statement(built) === held)
    }

    @Test(arguments: ["", "S", "SELECT", "SELECT 1", "SELECT 12"])
    func shortTextsAreKeysToo(_ sql: String) {
        var cache = [StatementCache.Key: Int]()
        cache[StatementCache.Key(sql)] = sql.utf8.count
        #expect(cache[StatementCache.Key(String(sql))] == sql.utf8.count)
        #expect(cache[StatementCache.Key(sql + " ")] == nil)
    }
}
