import EventLoop
import Postgres
import PostgresStore
import Relaydeck
import Testing
import TestSupport

/// A `PostgresSessionStore` on a fresh database with a `marks` table, an administrator's
/// connection that ends the store's server processes (`pg_terminate_backend`, as an operator
/// or a failover does), and what the store told `onAvailabilityChange`, in order. A pool of
/// one connection unless asked: what a body sees of its own connection's loss is the same in
/// a larger pool, and with one the bodies in line wait for that connection alone.
final class ReconnectHarness {
    static let insert = "INSERT INTO marks (id) VALUES ($1)"
    /// The server process of the session that runs it, as `n` (for `count`).
    static let backendPID = "SELECT pg_backend_pid() AS n"

    let driver: StoreTestDriver
    let database: String
    let store: PostgresSessionStore
    private let admin: PostgresConnection
    /// Each change of availability told, in order.
    var changes: [Bool] = []
    /// The reasons given with them (each `false`'s).
    var reasons: [PostgresError] = []

    init(cluster: PostgresCluster = .shared, connections: Int = 1, backoff: ReconnectBackoff = ReconnectBackoff()) throws {
        driver = try StoreTestDriver(cluster: cluster)
        database = try driver.createDatabase()
        let owner = try driver.open(database)
        _ = try driver.query(owner, "CREATE TABLE marks (id BIGINT PRIMARY KEY)")
        owner.close()
        store = try driver.sessionStore(database, backoff: backoff, connections: connections)
        admin = try driver.open("postgres", user: "rd_admin")
        store.onAvailabilityChange = { [unowned self] available, reason in
            changes.append(available)
            if let reason { reasons.append(reason) }
        }
    }

    var loop: EventLoop { driver.loop }

    /// `body` as a task on the loop; how it ended, once it did (60 s at most).
    func run<T>(_ body: @escaping () async throws -> T) throws -> Result<T, any Error> {
        var outcome: Result<T, any Error>?
        loop.startTask {
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        }
        loop.run(until: { outcome != nil }, within: .seconds(60))
        return try #require(outcome, "the task did not end within 60 s")
    }

    /// Ends server process `pid` and waits (5 s at most) until it has exited, from a task.
    func terminate(_ pid: Int) async throws {
        try await Self.terminate(pid, on: admin)
    }

    /// The same on `admin`, an administrator's connection of the caller's.
    static func terminate(_ pid: Int, on admin: PostgresConnection) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            admin.query(Self.terminateSQL, [.integer(Int64(pid))]) { result in
                switch result.flatMap({ answer in Result { () throws(PostgresError) in try answer.rows[0].bool("ended") } }) {
                case .success(true): continuation.resume()
                case .success(false): continuation.resume(throwing: PostgresError(.mismatch, "process \(pid) did not end"))
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The same, from the test's thread (turning the loop meanwhile).
    func terminateNow(_ pid: Int) throws {
        #expect(try driver.query(admin, Self.terminateSQL, [.integer(Int64(pid))])[0].bool("ended"))
    }

    /// The `n` of `sql`'s one row, on the administrator's connection.
    func adminCount(_ sql: String, _ values: [PostgresValue]) throws -> Int64 {
        try driver.query(admin, sql, values)[0].int64("n")
    }

    /// The ids in `marks`, read on a connection of their own.
    func marks() throws -> [Int64] {
        let reader = try driver.open(database)
        defer { reader.close() }
        return try driver.query(reader, "SELECT id FROM marks ORDER BY id").map { try $0.int64("id") }
    }

    private static let terminateSQL = "SELECT pg_terminate_backend($1, 5000) AS ended"
}

/// Whether `outcome` is the store's `503`: unavailable, with the store's `Retry-After`.
func isUnavailable<T>(_ outcome: Result<T, any Error>?) -> Bool {
    guard case .failure(StoreError.unavailable(let seconds)) = outcome else { return false }
    return seconds == Store.retryAfterSeconds
}
