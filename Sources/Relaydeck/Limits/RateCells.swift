import Clock
import SQLite

/// The rate limits counted in the database, for several nodes on one PostgreSQL: a request
/// counts toward its credential's (or address's) limit whichever node it reaches. The same
/// generic cell rate algorithm as one process runs in memory with SQLite (`RateLimiter` in
/// the API): one number per limit and subject, the theoretical arrival time, a burst of the
/// whole allowance, an exact `Retry-After`. Its table, `rate_cells`, is PostgreSQL's only and
/// UNLOGGED (a count lost with a crash of the database costs nothing worth a WAL record).
/// Each check is one statement: the cell moves only when the request is allowed. It runs on
/// the store's `reading`, where PostgreSQL's session is outside a transaction block and the
/// statement commits by itself: one round trip a request, where `writing`'s BEGIN and COMMIT
/// made three (`bench/cost.py --callgrind --postgres`: a task GET 309,250 -> 264,100 instructions).
///
/// The time is the nodes' wall clocks, in microseconds: clocks a few milliseconds apart move
/// a limit of minutes or hours by as little.
public final class RateCells {
    private let store: any SessionStore
    private let clock: any Clock

    public init(store: any SessionStore, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// Counts one request of `subject` under the limit `name`: `limit` in `periodMicros`.
    /// Nil when allowed; else the whole seconds to wait.
    public func take(_ name: String, subject: String, limit: Int, periodMicros: Int64) async throws -> Int? {
        let now = clock.wallMillis * 1000
        let limit = max(1, limit)
        let interval = max(1, periodMicros / Int64(limit))
        // Room for `limit - 1` requests on top of the one at hand.
        let tolerance = Int64(limit - 1) * interval
        return try await store.reading { db in
            let values: [StoreValue] = [.text(name), .text(subject), .integer(now), .integer(interval), .integer(tolerance)]
            if try await db.firstRow(SQL.take, values, { try $0.int64("tat") }) != nil { return nil }
            // Refused: the cell as it is now (another request may have moved it since, which
            // changes the wait by as little).
            let arrival = try await db.firstRow(SQL.cell, [.text(name), .text(subject)]) { try $0.int64("tat") } ?? now
            let wait = max(arrival, now) - now - tolerance
            return Int(max(1, (wait + 999_999) / 1_000_000))
        }
    }

    /// Removes the cells whose allowance is whole again (retention): they count as new.
    public func prune() async throws -> Int {
        let now = clock.wallMillis * 1000
        return try await store.writing { db in
            guard db.dialect == .postgres else { return 0 }
            return try await db.run(SQL.prune, .integer(now))
        }
    }

    /// PostgreSQL's only (the table is not in SQLite).
    enum SQL {
        /// $1 limit, $2 subject, $3 now, $4 interval, $5 tolerance: the cell moves by one
        /// interval when the request fits, and the row comes back; else no row. (Typed: a
        /// sum of two parameters has no type PostgreSQL can tell.)
        static let take = """
            INSERT INTO rate_cells AS c (name, subject, tat) VALUES ($1, $2, $3::bigint + $4::bigint) \
            ON CONFLICT (name, subject) DO UPDATE SET tat = greatest(c.tat, $3) + $4 \
            WHERE greatest(c.tat, $3) - $3 <= $5 RETURNING c.tat AS tat
            """
        static let cell = "SELECT tat FROM rate_cells WHERE name = $1 AND subject = $2"
        static let prune = "DELETE FROM rate_cells WHERE tat < $1"
    }
}
