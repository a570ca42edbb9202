import Postgres

/// Why `PostgresMigrator` did not bring a database up to date. Each refusal says what the
/// operator can do; none quotes the connection string, so none holds the password.
public enum PostgresMigrationError: Error, Equatable, CustomStringConvertible {
    /// `server_version_num` below 110000: identity columns, `EXECUTE FUNCTION` in triggers and
    /// `sha256()` (the copy's checksum) need PostgreSQL 11.
    case serverTooOld(version: String)
    /// The database's encoding is not UTF8: texts are counted in UTF-8 bytes (`octet_length`)
    /// and must hold any character the API accepts.
    case notUTF8(encoding: String)
    /// `schema_migrations` goes further than this binary's migrations.
    case newerSchema(found: Int, known: Int)
    /// `schema_migrations` holds a version this binary never had at that place (below 1, or
    /// after a missing one).
    case unknownEntry(version: Int, name: String)
    /// `schema_migrations` names another migration at a version this binary has.
    case mismatchedEntry(version: Int, found: String, expected: String)
    /// Tables but no `schema_migrations`: the database belongs to something else.
    case foreignTables(count: Int)
    /// Another node held the migration lock for longer than the migrator waits.
    case lockTimedOut(milliseconds: Int64)
    /// Migration `version` failed and was rolled back; the earlier ones stay.
    case migrationFailed(version: Int, name: String, PostgresError)
    /// A statement of the migrator's own, or the connection, failed.
    case failed(PostgresError)

    public var description: String {
        switch self {
        case .serverTooOld(let version):
            "the server is PostgreSQL \(version); relaydeckd needs PostgreSQL 11 or newer"
        case .notUTF8(let encoding):
            "the database's encoding is \(encoding), not UTF8; make one with CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0"
        case .newerSchema(let found, let known):
            "the database schema is version \(found), but this relaydeckd knows only up to \(known): it was written by a newer release"
        case .unknownEntry(let version, let name):
            "schema_migrations holds migration \(version) (\(quoted(name))), which this relaydeckd does not have at that place"
        case .mismatchedEntry(let version, let found, let expected):
            "schema_migrations names migration \(version) \(quoted(found)), but this relaydeckd's migration \(version) is \(quoted(expected))"
        case .foreignTables(let count):
            "the database holds \(count) table\(count == 1 ? "" : "s") and no schema_migrations: it is not a relaydeck database; use an empty one"
        case .lockTimedOut(let milliseconds):
            "another relaydeckd held the migration lock (pg_advisory_lock) for "
                + (milliseconds < 10_000 ? "\(milliseconds) ms" : "\(milliseconds / 1000) s") + "; try again"
        case .migrationFailed(let version, let name, let error):
            "migration \(version) (\(name)) failed and was rolled back: \(error)"
        case .failed(let error):
            error.description
        }
    }

    /// A name read from the database, in quotes and cut short, for a message.
    private func quoted(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(64).map { $0.value < 0x20 || $0 == "\"" ? "?" : String($0) }.joined()
        return "\"" + cut + (text.unicodeScalars.count > 64 ? "...\"" : "\"")
    }
}
