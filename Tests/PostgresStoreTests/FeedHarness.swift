import EventLoop
import Postgres
@testable import PostgresStore
import Relaydeck
import Testing
import TestSupport

/// A database of the test's own with the change feed's tables, sessions on it, and tasks run
/// on the driver's loop.
final class FeedHarness {
    let driver: StoreTestDriver
    let database: String

    init(cluster: PostgresCluster = .shared) throws {
        driver = try StoreTestDriver(cluster: cluster)
        database = try driver.createDatabase()
        _ = try driver.migrate(try driver.open(database), PostgresSchema.migrations).get()
    }

    var loop: EventLoop { driver.loop }

    func session() throws -> PostgresSession {
        PostgresSession(try driver.open(database))
    }

    /// `body` as a task on the loop; its value or its error once it ended.
    @discardableResult
    func run<T>(_ body: @escaping () async throws -> T) throws -> T {
        var outcome: Result<T, any Error>?
        driver.loop.startTask {
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        }
        driver.run { outcome != nil }
        return try #require(outcome, "the task did not end within 60 s").get()
    }

    /// `changes` appended by `node` in a transaction of their own; the last number.
    @discardableResult
    func commit(_ changes: [Change], node: String, on session: PostgresSession) throws -> Int64? {
        try run {
            try await session.begin()
            let last = try await ChangeFeed.append(changes, node: node, in: session)
            try await session.commit()
            return last
        }
    }

    func read(after: Int64, limit: Int = 100, on session: PostgresSession) throws -> ChangeFeedPage {
        try run { try await ChangeFeed.read(after: after, limit: limit, in: session) }
    }

    /// How many statements wait for the feed's head (an append behind another's transaction),
    /// once one does or after 2,000 looks.
    func appendsWaiting(on connection: PostgresConnection) throws -> Int64 {
        let sql = """
            SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' \
            AND query LIKE '%UPDATE change_feed_head%'
            """
        var waiting: Int64 = 0
        for _ in 0..<2_000 where waiting == 0 { waiting = try driver.query(connection, sql)[0].int64("n") }
        return waiting
    }

    /// A change told apart from the others by `n` (its key and unread count).
    static func change(_ n: Int, account: String = "acc_1") -> Change {
        Change(accountID: account, event: .inboxUpdated(keyID: "key_\(n)", unread: n), actor: .key("key_\(n)"))
    }
}

extension ChangeFeedPage {
    var seqs: [Int64] { entries.map(\.seq) }
    var changes: [Change] { entries.compactMap { try? $0.change.get() } }
}
