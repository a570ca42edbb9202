import CSQLite

/// Brings a database's schema up to date, tracked in PRAGMA user_version.
public enum Migrator {
    /// Applies the migrations above PRAGMA user_version in order, each in its own
    /// IMMEDIATE transaction together with its user_version bump, and returns those it
    /// applied (the caller logs them). Throws MigrationError or SQLiteError; a failed
    /// migration leaves the database at the previous version, with the earlier ones kept.
    ///
    /// A migration runs inside a transaction, where PRAGMA foreign_keys has no effect: a
    /// table rebuild that needs it off should use PRAGMA defer_foreign_keys = ON instead.
    /// A migration must not contain BEGIN, COMMIT or ROLLBACK.
    public static func migrate(_ db: Database, _ migrations: [Migration]) throws -> [Migration] {
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw MigrationError.outOfOrder(version: migration.version)
        }
        let current = try db.userVersion
        guard current <= migrations.count else {
            throw MigrationError.newerSchema(found: current, known: migrations.count)
        }
        var applied: [Migration] = []
        for migration in migrations.dropFirst(max(0, current)) {
            try db.transaction(.immediate) {
                try db.execute(migration.sql)
                // A COMMIT inside the script would have ended the transaction, and the
                // version bump below would then be committed apart from the migration.
                guard db.isInTransaction else {
                    throw SQLiteError(
                        code: SQLITE_MISUSE, message: "migration \(migration.version) ended its transaction",
                        sql: migration.sql)
                }
                try db.execute("PRAGMA user_version = \(migration.version)")
            }
            applied.append(migration)
        }
        return applied
    }
}
