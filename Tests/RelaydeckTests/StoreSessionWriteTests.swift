import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `Store.reading` and `Store.writing`, the forms of `read` and `write` for a service written
/// against `StoreSession`: the same transactions, savepoints and publishing after the COMMIT.
@Suite struct StoreSessionWriteTests {
    struct Boom: Error {}

    static func store(_ kind: StoreKind) throws -> TestStore {
        let test = try TestStore(kind)
        try test.store.write { db in try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") }
        return test
    }

    static func notes(_ test: TestStore) async throws -> [String] {
        try await test.store.reading { db in try await db.rows("SELECT text FROM notes ORDER BY id", []) { try $0.text("text") } }
    }

    static let insert = "INSERT INTO notes (text) VALUES ($1)"

    static func change(_ keyID: String) -> Change {
        Change(accountID: "acc_1", event: .keyDeleted(keyID: keyID), actor: .account)
    }

    @Test(arguments: StoreKind.allCases)
    func aWriteOfItsOwnIsCommittedWhenItsBodyReturns(_ kind: StoreKind) async throws {
        let test = try Self.store(kind)
        let changed = try await test.store.writing { db in try await db.run(Self.insert, "one") }
        #expect(changed == 1)
        #expect(try await Self.notes(test) == ["one"])
        // Committed: another connection to the file sees it too.
        if kind == .file { #expect(try test.rowCount("notes") == 1) }
    }

    @Test(arguments: StoreKind.allCases)
    func aWriteWhoseBodyThrowsKeepsNothingAndRethrows(_ kind: StoreKind) async throws {
        let test = try Self.store(kind)
        await #expect(throws: Boom.self) {
            try await test.store.writing { db in
                try await db.run(Self.insert, "gone")
                throw Boom()
            }
        }
        #expect(try await Self.notes(test).isEmpty)
        // The store goes on: the next write works.
        try await test.store.writing { db in try await db.run(Self.insert, "next") }
        #expect(try await Self.notes(test) == ["next"])
    }

    @Test(arguments: StoreKind.allCases)
    func insideTheTurnsUnitAWriteThatThrowsUndoesOnlyItself(_ kind: StoreKind) async throws {
        let test = try Self.store(kind)
        let work = try #require(try test.store.tryBeginWork())
        try await test.store.writing { db in try await db.run(Self.insert, "kept") }
        await #expect(throws: Boom.self) {
            try await test.store.writing { db in
                try await db.run(Self.insert, "undone")
                throw Boom()
            }
        }
        // A sync write of the same turn still joins it.
        try test.store.write { db in try db.statement(Self.insert).run("also kept") }
        try work.commit()
        #expect(try await Self.notes(test) == ["kept", "also kept"])
    }

    @Test(arguments: StoreKind.allCases)
    func aRecordedChangeIsPublishedAfterTheCommitAndNotWhenItsWriteThrows(_ kind: StoreKind) async throws {
        let test = try Self.store(kind)
        let before = test.changes.count
        let work = try #require(try test.store.tryBeginWork())
        try await test.store.writing(hub: test.hub) { db, turn in
            try await db.run(Self.insert, "a")
            try await turn.record(Self.change("key_a"))
        }
        await #expect(throws: Boom.self) {
            try await test.store.writing(hub: test.hub) { db, turn in
                try await db.run(Self.insert, "b")
                try await turn.record(Self.change("key_b"))
                throw Boom()
            }
        }
        #expect(test.changes.count == before)
        try work.commit()
        #expect(Array(test.changes[before...]) == [Self.change("key_a")])
    }

    @Test func anSQLErrorIsTheStoresFailureAndAReadOfAStoreAwayIsUnavailable() async throws {
        let test = try Self.store(.memory)
        await #expect {
            try await test.store.writing { db in try await db.run("INSERT INTO nowhere VALUES ($1)", 1) }
        } throws: { error in
            guard case StoreError.failure = error else { return false }
            return true
        }
        let away = Store(path: "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/store.db", clock: ManualClock())
        await #expect {
            try await away.reading { db in try await db.count("SELECT count(*) AS n FROM notes") }
        } throws: { error in
            guard case StoreError.unavailable = error else { return false }
            return true
        }
    }
}
