import Clock
import Postgres
@testable import PostgresStore
import Relaydeck
import SQLite
import Testing

/// The migrator against the real server: from empty, from every earlier version, twice,
/// two at once, and each refusal before anything changes.
@Suite struct MigrationTests {
    @Test func everySQLiteMigrationHasItsPostgreSQLTextNumberedAndNamedTheSame() {
        #expect(PostgresSchema.migrations.map { "\($0.version) \($0.name)" } == Schema.migrations.map { "\($0.version) \($0.name)" })
        #expect(PostgresSchema.version == Schema.version)
    }

    @Test func anEmptyDatabaseIsMigratedToTheLatestVersionAndEachStepRecorded() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        let applied = try driver.migrate(connection).get()
        #expect(applied.versions == Array(1...Schema.version))
        #expect(try driver.history(connection) == Schema.migrations.map { HistoryEntry(version: $0.version, name: $0.name) })
        let stamped = try driver.query(connection, "SELECT count(*) AS n FROM schema_migrations WHERE applied_at <= now()")
        #expect(try stamped.first?.int64("n") == Int64(Schema.version))
        // Migration 2's one row of `changes`.
        let changes = try driver.query(connection, "SELECT id, seq FROM changes")
        #expect(try changes.map { [try $0.int64("id"), try $0.int64("seq")] } == [[1, 0]])
    }

    @Test func migratingAgainAppliesNothing() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection).get()
        let before = try SchemaDump.read(driver, connection)
        #expect(try driver.migrate(connection).get().isEmpty)
        #expect(try SchemaDump.read(driver, connection) == before)
        #expect(try driver.history(connection).count == Schema.version)
    }

    @Test(arguments: 1..<Schema.version)
    func aDatabaseAtAnEarlierVersionGetsTheRestAndEndsAsOneMigratedFromEmpty(version: Int) throws {
        let driver = try StoreTestDriver()
        let reference = try driver.freshDatabase()
        _ = try driver.migrate(reference).get()
        let connection = try driver.freshDatabase()
        #expect(try driver.migrate(connection, Array(PostgresSchema.migrations.prefix(version))).get().versions == Array(1...version))
        #expect(try driver.history(connection).count == version)
        #expect(try driver.migrate(connection).get().versions == Array((version + 1)...Schema.version))
        #expect(try SchemaDump.read(driver, connection) == SchemaDump.read(driver, reference))
    }

    @Test func twoMigratorsStartedTogetherApplyEachMigrationOnce() throws {
        let driver = try StoreTestDriver()
        let name = try driver.createDatabase()
        let first = try driver.open(name)
        let second = try driver.open(name)
        var results: [Result<[PostgresMigration], PostgresMigrationError>] = []
        PostgresMigrator(connection: first, loop: driver.loop).migrate { results.append($0) }
        PostgresMigrator(connection: second, loop: driver.loop).migrate { results.append($0) }
        driver.run { results.count == 2 }
        let applied = try results.map { try $0.get().versions }
        #expect(applied.sorted { $0.count < $1.count } == [[], Array(1...Schema.version)])
        #expect(try driver.history(first).map(\.version) == Array(1...Schema.version))
        // The lock was given back: a third takes it at once.
        #expect(try driver.migrate(try driver.open(name), lockWait: .milliseconds(500)).get().isEmpty)
    }

    @Test func aLockHeldElsewhereIsWaitedForThenGivenUpOn() throws {
        let driver = try StoreTestDriver()
        let name = try driver.createDatabase()
        let holder = try driver.open(name)
        _ = try driver.query(holder, "SELECT pg_advisory_lock($1)", [.integer(PostgresMigrator.lockKey)])
        let connection = try driver.open(name)
        let result = try driver.migrate(connection, lockWait: .milliseconds(300))
        #expect(result.failure == .lockTimedOut(milliseconds: 300))
        #expect(result.failure?.description == "another relaydeckd held the migration lock (pg_advisory_lock) for 300 ms; try again")
        #expect(try driver.query(connection, "SELECT to_regclass('accounts') IS NULL AS missing").first?.bool("missing") == true)
        _ = try driver.query(holder, "SELECT pg_advisory_unlock($1)", [.integer(PostgresMigrator.lockKey)])
        #expect(try driver.migrate(connection).get().count == Schema.version)
    }

    @Test func aHistoryNewerThanThisBinaryIsRefused() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection).get()
        _ = try driver.query(connection, "INSERT INTO schema_migrations (version, name) VALUES ($1, 'from the future')",
                             [.integer(Int64(Schema.version + 1))])
        let refusal = try #require(try driver.migrate(connection).failure)
        #expect(refusal == .newerSchema(found: Schema.version + 1, known: Schema.version))
        #expect(refusal.description == "the database schema is version \(Schema.version + 1), but this relaydeckd knows only up to \(Schema.version): it was written by a newer release")
    }

    @Test func aHistoryWithAnEntryThisBinaryNeverHadIsRefusedAndNothingApplied() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection, Array(PostgresSchema.migrations.prefix(4))).get()
        _ = try driver.query(connection, "DELETE FROM schema_migrations WHERE version = 3")
        let refusal = try #require(try driver.migrate(connection).failure)
        #expect(refusal == .unknownEntry(version: 4, name: "web sign-in"))
        #expect(refusal.description == "schema_migrations holds migration 4 (\"web sign-in\"), which this relaydeckd does not have at that place")
        #expect(try driver.history(connection).map(\.version) == [1, 2, 4])
    }

    @Test func aHistoryThatNamesAnotherMigrationIsRefused() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.migrate(connection, Array(PostgresSchema.migrations.prefix(3))).get()
        _ = try driver.query(connection, "UPDATE schema_migrations SET name = 'something else' WHERE version = 2")
        let refusal = try #require(try driver.migrate(connection).failure)
        #expect(refusal == .mismatchedEntry(version: 2, found: "something else", expected: "tasks, questions, inbox, activity, devices"))
        #expect(try driver.history(connection).count == 3)
    }

    @Test(arguments: ["SQL_ASCII", "LATIN1"])
    func aDatabaseNotInUTF8IsRefusedBeforeAnythingIsMade(encoding: String) throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase(encoding: encoding)
        let refusal = try #require(try driver.migrate(connection).failure)
        #expect(refusal == .notUTF8(encoding: encoding))
        #expect(refusal.description == "the database's encoding is \(encoding), not UTF8; make one with CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0")
        #expect(try driver.query(connection, "SELECT to_regclass('schema_migrations') IS NULL AS missing").first?.bool("missing") == true)
    }

    @Test func aServerOlderThanPostgreSQL11IsRefused() {
        #expect(PostgresMigrator.serverRefusal(versionNumber: 100_023, version: "10.23", encoding: "UTF8") == .serverTooOld(version: "10.23"))
        #expect(PostgresMigrationError.serverTooOld(version: "10.23").description == "the server is PostgreSQL 10.23; relaydeckd needs PostgreSQL 11 or newer")
        #expect(PostgresMigrator.serverRefusal(versionNumber: 110_000, version: "11.0", encoding: "UTF8") == nil)
        #expect(PostgresMigrator.serverRefusal(versionNumber: 150_008, version: "15.8", encoding: "UTF8") == nil)
    }

    @Test func aDatabaseWithTablesButNoHistoryIsRefused() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        _ = try driver.query(connection, "CREATE TABLE orders (id bigint)")
        let refusal = try #require(try driver.migrate(connection).failure)
        #expect(refusal == .foreignTables(count: 1))
        #expect(try driver.query(connection, "SELECT to_regclass('accounts') IS NULL AS missing").first?.bool("missing") == true)
    }

    @Test func aMigrationThatFailsIsRolledBackWithItsRecordAndTheEarlierOnesStay() throws {
        let driver = try StoreTestDriver()
        let connection = try driver.freshDatabase()
        let broken = PostgresMigration(version: 3, name: "attested keys", statements: [
            "ALTER TABLE accounts ADD COLUMN attest_key_id BYTEA",
            "ALTER TABLE no_such_table ADD COLUMN x BIGINT",
        ])
        let result = try driver.migrate(connection, Array(PostgresSchema.migrations.prefix(2)) + [broken])
        guard case .migrationFailed(3, "attested keys", let error)? = result.failure else {
            Issue.record("not a failed migration 3: \(result)")
            return
        }
        #expect(error.sqlState == "42P01")
        #expect(try driver.history(connection).map(\.version) == [1, 2])
        let column = try driver.query(connection, """
            SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'accounts' AND column_name = 'attest_key_id'
            """)
        #expect(try column.first?.int64("n") == 0)
        // The connection is usable again (the failed transaction was rolled back), and so is the lock.
        #expect(try driver.migrate(connection).get().versions == Array(3...Schema.version))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
