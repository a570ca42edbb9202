@testable import Relaydeck
import SQLite
import Testing

/// The statements of `Accounts` through both sessions, on the same rows
/// (`ServiceStatementTests.BothStores`: acc_1, made with an attested key, and acc_2, deleted),
/// in the order the service runs them: made with and without an attested key, a key a live
/// account has refused by the check and by the index, settings changed, deleted with its keys,
/// after which its attested key makes a new account. Each answers the same in both.
@Suite struct AccountsStatementTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16, uppercase: true) }.joined(separator: ".")
    }

    @Test func accountsStatementsAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            typealias SQL = Accounts.SQL
            var said: [String] = []
            func select(_ id: String) async throws -> String {
                let found = try await db.firstRow(SQL.select, [.text(id)]) { row in
                    "\(try row.text("id")) at \(try row.int64("created_at")) live activities \(try row.bool("live_activities"))"
                }
                return "\(id): \(found ?? "none")"
            }
            func attested(_ id: String) async throws -> String {
                let found = try await db.firstRow(SQL.selectKeyOfAccount, [.text(id)]) { row in
                    "\(Self.hex(try row.blob("attest_key_id"))) \(Self.hex(try row.blob("attest_public_key"))) \(try row.int64("attest_counter"))"
                }
                return "key of \(id): \(found ?? "none")"
            }
            func inUse(_ keyID: [UInt8]) async throws -> String {
                "\(Self.hex(keyID)) in use: \(try await db.exists(SQL.selectAttestedKey, .blob(keyID)))"
            }
            func insertAttested(_ id: String, _ keyID: [UInt8]) async throws -> Int {
                try await db.run(SQL.insertAttested, .text(id), .blob(Array(id.utf8)), 810, .blob(keyID), .blob([0x04, 0xCC]), 0)
            }
            said.append(try await select("acc_1"))
            said.append(try await select("acc_2"))
            said.append(try await select("acc_none"))
            said.append(try await attested("acc_1"))
            said.append(try await attested("acc_2"))
            said.append(try await inUse([0x01, 0x02]))
            said.append(try await inUse([0x01]))
            try await db.begin()
            said.append("made: \(try await db.run(SQL.insert, "acc_3", .blob([0x0A]), 800))")
            said.append(try await select("acc_3"))
            said.append(try await attested("acc_3"))
            said.append("made attested: \(try await insertAttested("acc_4", [0x03, 0x03]))")
            said.append(try await attested("acc_4"))
            // Without the check, the index refuses a key a live account has.
            try await db.savepoint()
            do {
                _ = try await insertAttested("acc_5", [0x01, 0x02])
                said.append("a second live account: made")
            } catch {
                said.append("a second live account refused: \(isConstraintViolation(error, db.dialect))")
            }
            try await db.rollbackToSavepoint()
            said.append("settings: \(try await db.run(SQL.updateLiveActivities, 0, "acc_3"))")
            said.append(try await select("acc_3"))
            said.append("settings of acc_2: \(try await db.run(SQL.updateLiveActivities, 1, "acc_2"))")
            said.append("deleted: \(try await db.run(SQL.markDeleted, 900, "acc_1"))")
            said.append("deleted again: \(try await db.run(SQL.markDeleted, 901, "acc_1"))")
            said.append("its keys: \(try await db.run(SQL.markKeysDeleted, 900, "acc_1"))")
            said.append("its keys again: \(try await db.run(SQL.markKeysDeleted, 901, "acc_1"))")
            said.append(try await select("acc_1"))
            said.append(try await attested("acc_1"))
            said.append("settings after: \(try await db.run(SQL.updateLiveActivities, 0, "acc_1"))")
            said.append("live keys of acc_1: \(try await db.count(Keys.SQL.countLive, "acc_1"))")
            said.append(try await inUse([0x01, 0x02]))
            said.append("its key again: \(try await insertAttested("acc_6", [0x01, 0x02]))")
            said.append(try await attested("acc_6"))
            try await db.rollback()
            said.append(try await select("acc_1"))
            said.append(try await select("acc_3"))
            return said
        }
        #expect(sqlite == [
            "acc_1: acc_1 at 1700000000000 live activities true", "acc_2: none", "acc_none: none",
            "key of acc_1: 1.2 4.AA.BB 7", "key of acc_2: none",
            "1.2 in use: true", "1 in use: false",
            "made: 1", "acc_3: acc_3 at 800 live activities true", "key of acc_3: none",
            "made attested: 1", "key of acc_4: 3.3 4.CC 0",
            "a second live account refused: true",
            "settings: 1", "acc_3: acc_3 at 800 live activities false", "settings of acc_2: 0",
            "deleted: 1", "deleted again: 0", "its keys: 2", "its keys again: 0",
            "acc_1: none", "key of acc_1: none", "settings after: 0", "live keys of acc_1: 0",
            "1.2 in use: false", "its key again: 1", "key of acc_6: 1.2 4.CC 0",
            "acc_1: acc_1 at 1700000000000 live activities true", "acc_3: none",
        ])
        #expect(postgres == sqlite)
    }
}
