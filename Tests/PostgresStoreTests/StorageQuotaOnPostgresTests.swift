import Clock
import PostgresStore
@testable import Relaydeck
import Testing
import TestSupport

/// The storage quota on a real PostgreSQL database, as `StorageQuotaTests` checks it on SQLite:
/// the account's `text_bytes`, kept by the PL/pgSQL twins of migration 8's and 14's triggers,
/// follows every task written, changed and removed in UTF-8 bytes, and only a write that
/// grows the text past the limit is refused (`409`), writing and publishing nothing.
@Suite struct StorageQuotaOnPostgresTests {
    typealias Domain = TasksOnPostgresTests.Domain

    static func used(_ test: Domain, _ accountID: String? = nil) throws -> Int {
        try test.run { try await test.db.store.reading { try await StorageQuota.used($0, accountID: accountID ?? test.account.id) } }
    }

    /// The sum of the account's keys' counts: what the account's own count must equal.
    static func keysSum(_ test: Domain) throws -> Int64 {
        try test.count("SELECT coalesce(sum(text_bytes), 0)::bigint AS n FROM keys WHERE account_id = '\(test.account.id)'")
    }

    /// The account's text counted the slow way.
    static func scanned(_ test: Domain) throws -> Int64 {
        let account = test.account.id
        return try test.count("""
            SELECT (coalesce((SELECT sum(octet_length(title) + octet_length(description) + coalesce(octet_length(status_note), 0)) \
            FROM tasks WHERE account_id = '\(account)'), 0) \
            + coalesce((SELECT sum(octet_length(prompt) + octet_length(options) + coalesce(octet_length(answer), 0)) \
            FROM questions WHERE account_id = '\(account)'), 0) \
            + coalesce((SELECT sum(octet_length(text)) FROM inbox_items WHERE account_id = '\(account)'), 0))::bigint AS n
            """)
    }

    @Test func aTaskCountsTheUTF8BytesOfItsTitleDescriptionAndNoteOnPostgreSQL() throws {
        let test = try Domain()
        #expect(try Self.used(test) == 0)
        // "é" is 2 bytes, "👍🏽" 8: bytes are counted, not characters.
        let new = NewTask(title: Domain.checked("Café", .taskTitle), description: Domain.checked("👍🏽 ok", .taskDescription),
                          statusNote: Domain.checked("note", .statusNote))
        let task = try test.run { try await test.tasks.create(test.agent(), keyID: nil, new, host: nil) }
        #expect(try Self.used(test) == 5 + 11 + 4)
        #expect(try test.count("SELECT text_bytes AS n FROM keys WHERE id = '\(test.keys[1].id)'") == 0)
        _ = try test.update(test.agent(), task.id, TaskPatch(description: Domain.checked(String(repeating: "x", count: 100), .taskDescription)))
        #expect(try Self.used(test) == 5 + 100 + 4)
        _ = try test.update(test.agent(), task.id, TaskPatch(title: Domain.checked("C", .taskTitle), statusNote: .some(nil)))
        #expect(try Self.used(test) == 1 + 100)
        // A change of anything else leaves the count.
        _ = try test.update(test.agent(), task.id, TaskPatch(status: .inProgress, progress: .some(40)))
        #expect(try Self.used(test) == 101 && Self.keysSum(test) == 101)
        try test.run { try await test.tasks.delete(test.agent(), taskID: task.id) }
        #expect(try Self.used(test) == 0)
        // The filled store's account, copied with its count, is another account's.
        #expect(try Self.used(test, "acc_1") == 117)
    }

    @Test func aWriteThatWouldPassTheLimitIsAConflictAndWritesNothingOnPostgreSQL() throws {
        let test = try Domain()
        test.db.store.quota = StorageQuota(limit: 100)
        let task = try test.make(test.agent(), String(repeating: "a", count: 90))
        let full = DomainError.storageFull(test.db.store.quota.fullMessage)
        let before = test.published.count
        #expect(throws: full) { try test.make(test.agent(1), String(repeating: "b", count: 11)) }
        #expect(throws: full) {
            try test.update(test.agent(), task.id, TaskPatch(description: Domain.checked(String(repeating: "c", count: 11), .taskDescription)))
        }
        #expect(test.published.count == before)
        #expect(try Self.used(test) == 90 && test.count("SELECT count(*) AS n FROM tasks WHERE account_id = '\(test.account.id)'") == 1)
        #expect(try test.get(test.agent(), task.id) == task)
        // Up to the limit exactly is allowed.
        _ = try test.make(test.agent(1), String(repeating: "b", count: 10))
        #expect(try Self.used(test) == 100)
    }

    @Test func aFullAccountCanAlwaysShrinkDeleteAndChangeWhatIsNotTextOnPostgreSQL() throws {
        let test = try Domain()
        let task = try test.make(test.agent(), "Long title", description: "0123456789")
        // The operator lowers the limit below what the account holds.
        test.db.store.quota = StorageQuota(limit: 10)
        let full = DomainError.storageFull(test.db.store.quota.fullMessage)
        #expect(throws: full) { try test.update(test.agent(), task.id, TaskPatch(title: Domain.checked("Longer title", .taskTitle))) }
        _ = try test.update(test.agent(), task.id, TaskPatch(status: .done, priority: .high, progress: .some(100)))
        _ = try test.update(test.agent(), task.id, TaskPatch(title: Domain.checked("Short", .taskTitle),
                                                             description: Domain.checked("", .taskDescription)))
        #expect(try Self.used(test) == 5)
        try test.run { try await test.tasks.delete(test.agent(), taskID: task.id) }
        #expect(try Self.used(test) == 0)
    }

    @Test func theCountAgreesWithAScanAfterAnyMixOfWritesOnPostgreSQL() throws {
        let test = try Domain()
        var random = SplitMix64(seed: 26)
        var made: [(Principal, String)] = []
        let words = ["a", "é", "👍🏽", "plain words", "\u{E0100}x", ""]
        func text(_ count: Int) -> String { (0..<count).map { _ in words.randomElement(using: &random)! }.joined() }
        for _ in 0..<120 {
            let agent = test.agent(Int.random(in: 0..<2, using: &random))
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                let new = NewTask(title: Domain.checked("t" + text(3), .taskTitle), description: Domain.checked(text(20), .taskDescription),
                                  statusNote: Domain.checked(text(2), .statusNote))
                made.append((agent, try test.run { try await test.tasks.create(agent, keyID: nil, new, host: nil) }.id))
            case 2 where !made.isEmpty:
                let (owner, id) = made.randomElement(using: &random)!
                let note: CheckedText? = Bool.random(using: &random) ? nil : Domain.checked(text(1), .statusNote)
                _ = try test.update(owner, id, TaskPatch(title: Domain.checked("u" + text(2), .taskTitle),
                                                         description: Domain.checked(text(10), .taskDescription), statusNote: .some(note)))
            case 3 where !made.isEmpty:
                let (owner, id) = made.remove(at: Int.random(in: 0..<made.count, using: &random))
                try test.run { try await test.tasks.delete(owner, taskID: id) }
            default:
                break
            }
            test.clock.advance(millis: 1)
        }
        let total = try Self.used(test)
        #expect(try Int64(total) == Self.scanned(test) && total > 0)
        #expect(try Int64(total) == Self.keysSum(test))
    }
}
