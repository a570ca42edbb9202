import EventLoop
import Postgres

/// What a process does before it serves from PostgreSQL (the server, an operator's command):
/// the schema brought up to this build's version on a connection of its own (one node at a
/// time: `PostgresMigrator`'s advisory lock), then the store's own connection made. Each turns
/// the loop itself, so they run before the loop serves anything.
public enum PostgresStartup {
    /// Why a start cannot go on: the connection, the schema or the migration's failure, in
    /// words that name the server (`PostgresSettings.redacted`) and never the password.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Starts `store`'s connection and turns the loop until it is up, at most `within`.
    public static func connect(_ store: PostgresSessionStore, loop: EventLoop, within: TimeSpan = .seconds(30)) throws(Failure) {
        store.start()
        guard loop.run(until: { store.isAvailable }, within: within) else {
            store.stop()
            throw Failure(description: "\(store.connector.settings.redacted): no connection within \(within.milliseconds / 1000) s")
        }
    }

    /// Connects, migrates, closes; the loop turns until that is done.
    public static func migrate(_ connector: PostgresConnector, loop: EventLoop) throws(Failure) -> [PostgresMigration] {
        var outcome: Result<[PostgresMigration], Failure>?
        var connection: PostgresConnection?
        var migrator: PostgresMigrator?
        connector.connect { result in
            switch result {
            case .failure(let error):
                outcome = .failure(Failure(description: "cannot connect to \(connector.settings.redacted): \(error)"))
            case .success(let opened):
                connection = opened
                let made = PostgresMigrator(connection: opened, loop: loop)
                migrator = made
                made.migrate { result in
                    outcome = result.mapError { Failure(description: "\(connector.settings.redacted): \($0.description)") }
                }
            }
        }
        _ = loop.run(until: { outcome != nil })
        connection?.close()
        _ = migrator
        guard let outcome else { throw Failure(description: "\(connector.settings.redacted): the migration never ended") }
        return try outcome.get()
    }
}
