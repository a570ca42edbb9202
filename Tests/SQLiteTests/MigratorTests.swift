import SQLite
import Testing

@Suite struct MigratorTests {
    static let migrations = [
        Migration(version: 1, name: "accounts", sql: "CREATE TABLE accounts(id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
        Migration(version: 2, name: "tasks", sql: """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, account INTEGER NOT NULL REFERENCES accounts(id));
            CREATE INDEX tasks_account ON tasks(account);
            """),
        Migration(version: 3, name: "accounts.created", sql: "ALTER TABLE accounts ADD COLUMN created INTEGER NOT NULL DEFAULT 0"),
    ]

    @Test(arguments: StoreKind.allCases)
    func appliesEveryMigrationInOrder(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let applied = try Migrator.migrate(db, Self.migrations)
        #expect(applied.map(\.version) == [1, 2, 3])
        #expect(applied.map(\.name) == ["accounts", "tasks", "accounts.created"])
        #expect(try db.userVersion == 3)
        #expect(try db.tableExists("accounts") && db.tableExists("tasks"))
        try db.execute("INSERT INTO accounts(name, created) VALUES ('a', 5)")
    }

    @Test(arguments: StoreKind.allCases)
    func secondRunAppliesNothing(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        _ = try Migrator.migrate(db, Self.migrations)
        #expect(try Migrator.migrate(db, Self.migrations).isEmpty)
        #expect(try db.userVersion == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func continuesFromTheCurrentVersion(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        #expect(try Migrator.migrate(db, Array(Self.migrations.prefix(2))).map(\.version) == [1, 2])
        #expect(try Migrator.migrate(db, Self.migrations).map(\.version) == [3])
        #expect(try db.userVersion == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func failingMigrationLeavesThePreviousVersion(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let broken = [
            Self.migrations[0],
            Migration(version: 2, name: "broken", sql: """
                CREATE TABLE half(x);
                CREATE TABLE done(y);
                INSERT INTO nowhere VALUES (1);
                """),
        ]
        let error = #expect(throws: SQLiteError.self) { try Migrator.migrate(db, broken) }
        #expect(error?.message == "no such table: nowhere")
        #expect(try db.userVersion == 1)
        #expect(try db.tableExists("accounts"))
        #expect(try db.tableExists("half") == false)
        #expect(try db.tableExists("done") == false)
        #expect(db.isInTransaction == false)
        // Fixed, it applies from where it stopped.
        #expect(try Migrator.migrate(db, Self.migrations).map(\.version) == [2, 3])
    }

    @Test(arguments: StoreKind.allCases)
    func detectsASchemaFromANewerRelease(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        try db.execute("PRAGMA user_version = 5")
        #expect(throws: MigrationError.newerSchema(found: 5, known: 3)) {
            try Migrator.migrate(db, Self.migrations)
        }
        #expect(try db.tableExists("accounts") == false)
        #expect(try db.userVersion == 5)
    }

    @Test(arguments: [[1, 3], [2], [1, 2, 2], [0, 1]], StoreKind.allCases)
    func detectsAListOutOfOrder(_ versions: [Int], _ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let list = versions.map { Migration(version: $0, name: "m\($0)", sql: "CREATE TABLE m\($0)(x)") }
        let expected = zip(versions, 1...).first { $0.0 != $0.1 }!.0
        #expect(throws: MigrationError.outOfOrder(version: expected)) {
            try Migrator.migrate(db, list)
        }
        // Checked before anything runs.
        #expect(try db.userVersion == 0)
        #expect(try db.tableExists("m1") == false)
    }

    @Test(arguments: StoreKind.allCases)
    func emptyListOnAFreshDatabaseIsFine(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        #expect(try Migrator.migrate(db, []).isEmpty)
        #expect(try db.userVersion == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func migrationThatCommitsOnItsOwnIsRefused(_ kind: StoreKind) throws {
        let db = try TestStore(kind).open()
        let rogue = [Migration(version: 1, name: "rogue", sql: "CREATE TABLE r(x); COMMIT")]
        let error = #expect(throws: SQLiteError.self) { try Migrator.migrate(db, rogue) }
        #expect(error?.message == "migration 1 ended its transaction")
        #expect(try db.userVersion == 0)
    }

    @Test func errorsDescribeThemselves() {
        #expect(MigrationError.newerSchema(found: 5, known: 3).description
            == "the database schema is version 5, but this relaydeckd knows only up to 3: it was written by a newer release")
        #expect(MigrationError.outOfOrder(version: 4).description
            == "migration 4 is out of order: versions must be 1, 2, 3, ... in the list's order")
    }
}
