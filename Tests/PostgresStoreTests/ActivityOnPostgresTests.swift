import Clock
import EventLoop
import PostgresStore
@testable import Relaydeck
import Testing
import TestSupport

/// `ActivityLog`, written against `StoreSession`, on a real PostgreSQL database (the filled
/// store's copy): entries added in a batch, read newest first a page at a time with the
/// cursor, the newest 200 of a key kept, and a key of another account refused.
@Suite struct ActivityOnPostgresTests {
    static func entry(_ keyID: String, at: Int64, ok: Bool = true) -> ActivityLog.Pending {
        ActivityLog.Pending(keyID: keyID, at: at, surface: .rest, action: "GET /v1/tasks", ok: ok,
                            code: ok ? nil : "not_found", message: ok ? nil : "Task not found.", durationMillis: 3,
                            client: Key.Client(name: "claude-code", version: "1.0"), host: "laptop")
    }

    @Test func entriesAreAddedAndPagedNewestFirstWithTheCursor() throws {
        let db = try PostgresSessionStoreTests.Filled()
        let base = ActivityLog.keptMillis + 1_000
        let clock = ManualClock()
        clock.wallMillis = base + 100
        let log = ActivityLog(store: db.store, clock: clock, random: SystemRandom())
        // The filled store's two entries of key_1 (at 30 and 31) are past the 7 days: left out.
        try db.run { _ = try await log.appendAll((0..<5).map { Self.entry("key_1", at: base + Int64($0), ok: $0 != 2) }) }
        let first = try db.run { try await log.page(accountID: "acc_1", keyID: "key_1", limit: 3, after: nil) }
        #expect(first.entries.map(\.at) == [base + 4, base + 3, base + 2])
        #expect(first.entries[1].client == Key.Client(name: "claude-code", version: "1.0"))
        #expect(first.entries[2].ok == false && first.entries[2].code == "not_found")
        let cursor = try #require(first.next)
        let second = try db.run { try await log.page(accountID: "acc_1", keyID: "key_1", limit: 3, after: cursor) }
        #expect(second.entries.map(\.at) == [base + 1, base])
        #expect(second.next == nil)
        #expect(throws: DomainError.notFound("Key not found.")) {
            try db.run { try await log.page(accountID: "acc_2", keyID: "key_1", limit: 3, after: nil) }
        }
    }

    @Test func aKeyKeepsItsNewest200() throws {
        let db = try PostgresSessionStoreTests.Filled()
        let clock = ManualClock()
        clock.wallMillis = 1_000_000
        let log = ActivityLog(store: db.store, clock: clock, random: SystemRandom())
        // The first batch of this process trims the key: of 260 entries its newest 200 stay.
        try db.run { _ = try await log.appendAll((0..<260).map { Self.entry("key_2", at: 900_000 + Int64($0)) }) }
        #expect(try db.count("SELECT count(*) AS n FROM activity WHERE key_id = 'key_2'") == 200)
        let page = try db.run { try await log.page(accountID: "acc_1", keyID: "key_2", limit: 100, after: nil) }
        #expect(page.entries.first?.at == 900_259)
    }

    /// What a read of the log waits for (`ActivityRecorder.flushed`): a batch sent as a task of
    /// its own is still being written on one of the pool's connections when the read comes, on
    /// another; without the wait the read saw part of the log (CI's `test_a_log_keeps_the_newest_200`
    /// on PostgreSQL: 147 of 200).
    @Test func aReadAfterTheWritesInFlightEndedSeesTheBatchSentBeforeIt() throws {
        let db = try PostgresSessionStoreTests.Filled(connections: 2)
        let clock = ManualClock()
        clock.wallMillis = 1_000_000
        let log = ActivityLog(store: db.store, clock: clock, random: SystemRandom())
        db.driver.loop.startTask {
            _ = try? await log.appendAll((0..<150).map { Self.entry("key_2", at: 900_000 + Int64($0)) })
        }
        let page = try db.run {
            await log.writesEnded()
            return try await log.page(accountID: "acc_1", keyID: "key_2", limit: 100, after: nil)
        }
        #expect(page.entries.count == 100 && page.entries.first?.at == 900_149)
    }
}
