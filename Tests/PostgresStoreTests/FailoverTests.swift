import EventLoop
import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// The server stopped (a fast shutdown, as `pg_ctl stop -m fast`) and started again on the
/// same port under a stream of writes through one `PostgresSessionStore`, on a cluster of the
/// test's own: every write is answered, success or unavailable, none waits long; the store
/// reads unavailable while the server is away and available again without help within its
/// backoff; and every write that returned success is in the table afterwards.
@Suite struct FailoverTests {
    /// A write every 5 ms, each a row of its own number, and how each ended.
    final class WriteStream {
        let store: PostgresSessionStore
        let loop: EventLoop
        var flowing = true
        var next: Int64 = 1
        var acknowledged: [Int64] = []
        var refused = 0
        var failed: [String] = []
        var inFlight = 0
        var longest = TimeSpan.zero

        init(_ store: PostgresSessionStore, _ loop: EventLoop) {
            self.store = store
            self.loop = loop
        }

        func write() {
            guard flowing else { return }
            let id = next
            next += 1
            let started = loop.now
            inFlight += 1
            loop.startTask { [self] in
                do {
                    try await store.writing { try await $0.run(ReconnectHarness.insert, .integer(id)) }
                    acknowledged.append(id)
                } catch StoreError.unavailable {
                    refused += 1
                } catch {
                    failed.append("\(error)")
                }
                longest = max(longest, loop.now - started)
                inFlight -= 1
            }
            loop.schedule(after: .milliseconds(5)) { [weak self] in self?.write() }
        }
    }

    @Test func aServerStoppedAndStartedUnderWritesAnswersUnavailableThenRecoversLosingNothingAcknowledged() throws {
        let cluster = try PostgresCluster()
        let harness = try ReconnectHarness(cluster: cluster, connections: PostgresSessionStore.defaultConnections)
        let loop = harness.loop
        let stream = WriteStream(harness.store, loop)
        stream.write()
        loop.run(until: { false }, within: .milliseconds(300))
        #expect(!stream.acknowledged.isEmpty && stream.refused == 0)

        cluster.beginStop()
        #expect(loop.run(until: { harness.changes == [false] }, within: .seconds(10)))
        let refusedBefore = stream.refused
        loop.run(until: { false }, within: .milliseconds(500))
        #expect(!harness.store.isAvailable)
        #expect(stream.refused > refusedBefore)

        let restarted = loop.now
        try cluster.restart(waiting: false)
        #expect(loop.run(until: { harness.store.isAvailable }, within: .seconds(15)), "\(cluster.log)")
        // The server's start-up, then at most one wait of the backoff (5 s).
        #expect(loop.now - restarted < .seconds(8))
        let acknowledgedBefore = stream.acknowledged.count
        loop.run(until: { false }, within: .milliseconds(300))
        stream.flowing = false
        #expect(loop.run(until: { stream.inFlight == 0 }, within: .seconds(60)))

        #expect(harness.changes == [false, true])
        #expect(stream.failed.isEmpty)
        #expect(stream.longest < .seconds(2))
        #expect(stream.acknowledged.count > acknowledgedBefore)
        let stored = Set(try harness.marks())
        #expect(Set(stream.acknowledged).isSubset(of: stored))
        // A refused write may have committed (its COMMIT in flight), but nothing else is there.
        #expect(stored.allSatisfy { $0 < stream.next })
    }
}
