import Glibc
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// `Store.checkpointInBackground`: the loop's commits ask a thread of its own to checkpoint
/// the WAL instead of doing it inside the COMMIT.
@Suite struct StoreCheckpointTests {
    static func walBytes(_ path: String) -> Int {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int(info.st_size) : 0
    }

    /// Writes about `pages` pages, each commit a few.
    static func fill(_ store: Store, pages: Int) throws {
        let blob = String(repeating: "x", count: 3000)
        for _ in 0..<pages {
            try store.write { db in try db.statement("INSERT INTO filler (text) VALUES (?)").run(.text(blob)) }
        }
    }

    static func waitFor(_ condition: () -> Bool) {
        var waited = 0
        while !condition() && waited < 1000 {
            usleep(10_000)
            waited += 1
        }
    }

    /// An open store with a `filler` table, with or without the checkpoint thread.
    static func store(in directory: TemporaryDirectory, thread: Bool) throws -> (Store, String) {
        let path = directory.file("relaydeck.db")
        let store = Store(path: path)
        if thread { store.checkpointInBackground() }
        #expect(try store.open())
        try store.write { db in try db.execute("CREATE TABLE filler (n INTEGER PRIMARY KEY, text TEXT)") }
        return (store, path)
    }

    static func rows(_ store: Store) throws -> Int {
        try store.read { db in
            let statement = try db.prepare("SELECT count(*) FROM filler")
            _ = try statement.step()
            return statement.int(0)
        }
    }

    @Test func commitsPastTheLimitAreCheckpointedByTheThreadAndEveryRowStays() throws {
        let directory = TemporaryDirectory()
        let (store, path) = try Self.store(in: directory, thread: true)
        try Self.fill(store, pages: Store.checkpointFrames + 200)
        // The thread works beside the test: wait for its checkpoint (asked for at 1000 frames).
        Self.waitFor { store.backgroundCheckpoints >= 1 }
        #expect(store.backgroundCheckpoints >= 1)
        // Each of the thread's checkpoints is timed (`/metrics`), none failed, the loop ran none.
        let times = store.threadCheckpoints
        #expect(times.counts.reduce(0, +) == store.backgroundCheckpoints)
        #expect(times.counts.count == Store.CheckpointFigures.boundsMicros.count + 1)
        #expect(times.sumMicros > 0)
        #expect(times.failures == 0)
        #expect(store.loopCheckpoints.counts.reduce(0, +) == 0)
        #expect(store.walFileBytes == Self.walBytes(path))
        try Self.fill(store, pages: 300)
        #expect(try Self.rows(store) == Store.checkpointFrames + 500)
        // The stop ends the thread and empties the WAL.
        store.close()
        #expect(Self.walBytes(path) == 0)
    }

    /// Commits without a pause leave the thread no moment to finish: past
    /// `inlineCheckpointFrames` the loop checkpoints itself (copying only what the thread has
    /// not), so the WAL stays bounded.
    @Test func aWALThatOutgrowsTheThreadIsCheckpointedByTheCommitThatCrossesTheLimit() throws {
        let directory = TemporaryDirectory()
        let (store, path) = try Self.store(in: directory, thread: true)
        var largest = 0
        for _ in 0..<(Store.inlineCheckpointFrames * 5 / 2) {
            try Self.fill(store, pages: 1)
            largest = max(largest, Self.walBytes(path))
        }
        // While the thread is in a checkpoint of its own the loop's attempt is BUSY and the
        // next commit tries again, so how far past the limit the WAL gets depends on how fast
        // the thread is (330 frames seen on a loaded machine): the bound is well below the
        // 25,000 frames of the whole fill, which is where it would end without the loop's
        // checkpoints.
        #expect(largest <= (Store.inlineCheckpointFrames + 2000) * 4200)
        #expect(try Self.rows(store) == Store.inlineCheckpointFrames * 5 / 2)
        #expect(store.loopCheckpoints.failures == 0)
        store.close()
    }

    /// Without the thread the store checkpoints as SQLite does by default, inside the commit.
    @Test func withoutTheThreadSQLitesOwnCheckpointKeepsTheWALBounded() throws {
        let directory = TemporaryDirectory()
        let (store, path) = try Self.store(in: directory, thread: false)
        try Self.fill(store, pages: 3 * Store.checkpointFrames)
        #expect(store.backgroundCheckpoints == 0)
        #expect(Self.walBytes(path) < 2 * Store.checkpointFrames * 4200)
        // SQLite's own checkpoints are not timed: the figures stay empty rather than made up.
        #expect(store.threadCheckpoints.counts.reduce(0, +) == 0)
        #expect(store.loopCheckpoints.counts.reduce(0, +) == 0)
        store.close()
    }
}
