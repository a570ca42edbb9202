import Crypto
import SQLite

/// One book of one-time challenges kept in the database, for several nodes on one
/// PostgreSQL: a challenge one node gave out works once on whichever node the client's next
/// request reaches (`app-integrity.md#get-a-challenge`, the web console's passkeys). Its table,
/// `challenges`, is PostgreSQL's only (migration 18); with SQLite one process keeps its books
/// in memory. The same rules as those books: each challenge works once, until its lifetime
/// ends, an attempt that fails uses it too, and a book holds at most `capacity` live ones.
///
/// Times are the nodes' wall clocks in milliseconds, given by the caller: clocks a few
/// milliseconds apart move a lifetime of 5 minutes by as little.
public final class SharedChallenges {
    /// The books, each counted against its own capacity; a challenge is used only in its own.
    public enum Kind: String, Sendable {
        case attest, passkey
    }

    private let store: any SessionStore
    let kind: Kind
    public let capacity: Int
    let lifetimeMillis: Int64

    public init(store: any SessionStore, kind: Kind, capacity: Int, lifetimeMillis: Int64) {
        self.store = store
        self.kind = kind
        self.capacity = capacity
        self.lifetimeMillis = lifetimeMillis
    }

    /// Keeps `challenge` (its bytes as the client will send them back) for `owner` (an account
    /// ID, or "" for anyone) for its lifetime from `nowMillis`, after forgetting the book's
    /// expired ones; false when the book holds `capacity` live ones. Two nodes issuing at the
    /// same instant each count what is committed, so a full book may take one more per
    /// connection writing at once: still bounded.
    public func issue(_ challenge: [UInt8], owner: String, nowMillis: Int64) async throws -> Bool {
        let values: [StoreValue] = [.text(kind.rawValue), .integer(nowMillis), .blob(SHA256.hash(challenge)),
                                    .text(owner), .integer(nowMillis + lifetimeMillis), .integer(Int64(capacity))]
        return try await store.writing { db in try await db.run(SQL.issue, values) } == 1
    }

    /// Uses `challenge` up, whatever follows, and says whether this book gave it to `owner`
    /// and it has not expired. One statement deletes it, so of two nodes using it at once one
    /// finds it and the other does not.
    public func use(_ challenge: [UInt8], owner: String, nowMillis: Int64) async throws -> Bool {
        let values: [StoreValue] = [.blob(SHA256.hash(challenge)), .text(kind.rawValue)]
        let kept = try await store.writing { db in
            try await db.firstRow(SQL.use, values) { row in (owner: try row.text("owner"), expiry: try row.int64("expires_at")) }
        }
        guard let kept else { return false }
        return kept.owner == owner && nowMillis < kept.expiry
    }

    /// The book's live challenges at `nowMillis` (tests and their checks of the capacity).
    public func count(nowMillis: Int64) async throws -> Int {
        try await store.reading { db in try await db.count(SQL.live, .text(kind.rawValue), .integer(nowMillis)) }
    }

    /// PostgreSQL's only (the table is not in SQLite).
    enum SQL {
        /// $1 kind, $2 now, $3 hash, $4 owner, $5 expiry, $6 capacity: the book's expired rows
        /// go and the challenge comes in when fewer than the capacity live, in one statement
        /// (the count, in the statement's snapshot, leaves out what the sweep deletes). Typed:
        /// a parameter in a SELECT's list has no type PostgreSQL can tell.
        static let issue = """
            WITH swept AS (DELETE FROM challenges WHERE kind = $1 AND expires_at <= $2) \
            INSERT INTO challenges (hash, kind, owner, expires_at) \
            SELECT $3::bytea, $1, $4::text, $5::bigint \
            WHERE (SELECT count(*) FROM challenges WHERE kind = $1 AND expires_at > $2) < $6
            """
        /// $1 hash, $2 kind: the row goes, and comes back if it was there.
        static let use = "DELETE FROM challenges WHERE hash = $1 AND kind = $2 RETURNING owner, expires_at"
        static let live = "SELECT count(*) AS n FROM challenges WHERE kind = $1 AND expires_at > $2"
    }
}
