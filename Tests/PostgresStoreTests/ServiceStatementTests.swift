import EventLoop
import Postgres
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing
import TestSupport

/// The statements of the services that run on a store session (issue 25: `LiveActivities`
/// first), through both sessions, on the same rows: the filled SQLite store, and its copy in
/// a PostgreSQL database. Each answers the same in both, and as the service expects.
@Suite struct ServiceStatementTests {
    /// Both sessions on the filled store's rows, and the loop their tasks run on.
    final class BothStores {
        let directory = TemporaryDirectory()
        let driver: StoreTestDriver
        let sqlite: SQLiteSession
        let postgres: PostgresSession

        init() throws {
            let file = try FilledStore.make(in: directory)
            driver = try StoreTestDriver()
            let connection = try driver.freshDatabase()
            _ = try driver.migrate(connection).get()
            _ = try CopyTests.copy(file, driver, connection).result.get()
            sqlite = SQLiteSession(try Database(path: file))
            postgres = PostgresSession(connection)
        }

        /// `scenario`'s transcript in each store.
        func run(_ scenario: @escaping (any StoreSession) async throws -> [String]) throws -> (sqlite: [String], postgres: [String]) {
            (try run(scenario, on: sqlite), try run(scenario, on: postgres))
        }

        private func run(_ scenario: @escaping (any StoreSession) async throws -> [String],
                         on session: any StoreSession) throws -> [String] {
            var outcome: Result<[String], any Error>?
            driver.loop.startTask {
                do { outcome = .success(try await scenario(session)) } catch { outcome = .failure(error) }
            }
            driver.loop.run(until: { outcome != nil }, within: .seconds(60))
            return try #require(outcome).get()
        }
    }

    @Test func liveActivitiesStatementsAnswerTheSameInBothStores() throws {
        let stores = try BothStores()
        let (sqlite, postgres) = try stores.run { db in
            typealias SQL = LiveActivities.SQL
            var said: [String] = []
            for (task, account) in [("tsk_1", "acc_1"), ("tsk_1", "acc_2"), ("tsk_3", "acc_2"), ("tsk_none", "acc_1")] {
                said.append("task \(task) of \(account): \(try await db.exists(SQL.taskOfAccount, .text(task), .text(account)))")
            }
            for account in ["acc_1", "acc_2"] {
                said.append("dev_1 of \(account): \(try await db.exists(Devices.SQL.exists, .text(account), .text("dev_1")))")
            }
            try await db.begin()
            said.append("newer token: \(try await db.run(SQL.upsert, "tsk_1", "dev_1", "acc_1", "dd44", 80))")
            said.append("second task: \(try await db.run(SQL.upsert, "tsk_2", "dev_1", "acc_1", "ee55", 81))")
            for task in ["tsk_1", "tsk_2"] {
                let found = try await db.rows(SQL.ofTask, [.text(task), .text("acc_1")]) { row in
                    "\(try row.text("device_id")) \(try row.text("push_token"))"
                }
                said.append("\(task): \(found)")
            }
            said.append("removed: \(try await db.run(SQL.delete, "tsk_1", "dev_1", "acc_1"))")
            said.append("removed again: \(try await db.run(SQL.delete, "tsk_1", "dev_1", "acc_1"))")
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "task tsk_1 of acc_1: true", "task tsk_1 of acc_2: false", "task tsk_3 of acc_2: true", "task tsk_none of acc_1: false",
            "dev_1 of acc_1: true", "dev_1 of acc_2: false",
            "newer token: 1", "second task: 1", #"tsk_1: ["dev_1 dd44"]"#, #"tsk_2: ["dev_1 ee55"]"#,
            "removed: 1", "removed again: 0",
        ])
        #expect(postgres == sqlite)
    }
}
