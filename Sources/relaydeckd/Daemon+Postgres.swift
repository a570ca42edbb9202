import EventLoop
import Logging
import Postgres
import PostgresStore
import Relaydeck

/// The server's store on PostgreSQL (`DATABASE_URL`): made with the daemon, prepared at the
/// start of `run` (the schema migrated, the connection made: a start that cannot is a failed
/// start), and from then on made again by itself whenever it is lost, with each change of
/// availability in the log.
final class PostgresWiring {
    let store: PostgresSessionStore
    private let connector: PostgresConnector
    private let loop: EventLoop
    /// After the store came back from an outage: the maintenance and the VAPID key again.
    var onRecovered: (() -> Void)?

    init(settings: PostgresSettings, quota: StorageQuota, loop: EventLoop) throws(PostgresError) {
        connector = try PostgresConnector(settings: settings, loop: loop)
        self.loop = loop
        store = PostgresSessionStore(connector: connector, loop: loop)
        store.quota = quota
    }

    /// Migrates and connects, turning the loop until done; throws what stops the start.
    func prepare() throws(PostgresStartup.Failure) {
        let applied = try PostgresStartup.migrate(connector, loop: loop)
        Log.info("store", ["database": connector.settings.redacted, "schema": String(PostgresSchema.version),
                           "migrations_applied": String(applied.count)])
        var answeredBefore = false
        store.onAvailabilityChange = { [weak self] available, reason in
            if available {
                // The first connection is the start's; each later one ends an outage.
                guard answeredBefore else {
                    answeredBefore = true
                    return
                }
                Log.info("the database answers again")
                self?.onRecovered?()
            } else {
                // The error names the server and the SQLSTATE, never a password.
                Log.warn("the database is unavailable; answering 503 and connecting again",
                         ["error": reason.map { String(describing: $0) } ?? "-"])
            }
        }
        try PostgresStartup.connect(store, loop: loop)
    }

    func stop() {
        store.stop()
    }
}
