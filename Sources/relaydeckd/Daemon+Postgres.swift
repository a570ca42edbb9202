import Clock
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
    /// This process's name in the change feed: new at each start (a node that starts again
    /// reads the feed from its head, as a new one does).
    let node: String
    private var listener: ChangeFeedListener?
    private var pruneTimer: LoopTimer?
    /// How often the feed's old rows and the rate limits' whole cells are removed.
    static let pruneInterval = TimeSpan.seconds(60)
    /// After the store came back from an outage: the maintenance and the VAPID key again.
    var onRecovered: (() -> Void)?

    init(settings: PostgresSettings, connections: Int, quota: StorageQuota, loop: EventLoop) throws(PostgresError) {
        connector = try PostgresConnector(settings: settings, loop: loop)
        self.loop = loop
        store = PostgresSessionStore(connector: connector, loop: loop, connections: connections)
        store.quota = quota
        node = Identifier.make("node_", millis: SystemClock.shared.wallMillis, random: SystemRandom())
        store.feedNode = node
    }

    /// The other nodes' changes, from the feed, published to `hub` as this node's own are
    /// (the waiting calls and the event streams hear of them); when some were missed (the
    /// connection was away longer than the feed keeps them), `missed` ends what listened
    /// (the streams, which clients open again: `events.md#reconnect`).
    func startFeed(hub: EventHub, missed: @escaping () -> Void) {
        let listener = ChangeFeedListener(connector: connector, loop: loop, node: node)
        listener.onChange = { change in hub.publish(change) }
        listener.onMissed = {
            Log.warn("changes of other nodes were missed; the event streams start again")
            missed()
        }
        listener.start()
        self.listener = listener
        schedulePrune()
    }

    private func schedulePrune() {
        pruneTimer = loop.schedule(after: Self.pruneInterval) { [weak self] in
            guard let self else { return }
            loop.startTask { [self] in
                await prune()
                schedulePrune()
            }
        }
    }

    /// The feed's rows older than its retention, and the rate limits' cells whose allowance
    /// is whole again; a failure waits for the next time.
    private func prune() async {
        do {
            try await store.writing { db in _ = try await ChangeFeed.prune(in: db) }
            _ = try await RateCells(store: store, clock: SystemClock.shared).prune()
        } catch {
            Log.warn("could not prune the change feed or the rate limits' cells", ["error": String(describing: error)])
        }
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

    /// The listener, the timer, then the store (what a stop tells no one as an outage).
    func stop() {
        listener?.stop()
        if let pruneTimer { loop.cancel(pruneTimer) }
        pruneTimer = nil
        store.onAvailabilityChange = nil
        store.stop()
    }
}
