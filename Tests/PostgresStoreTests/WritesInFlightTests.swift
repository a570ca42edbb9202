import EventLoop
import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// `afterWritesInFlight` on PostgreSQL: an action asked for inside a write (a push planner's
/// kick) runs once that write has committed, not before (a drain started then reads the
/// outbox on another connection of the pool and would not see the write's jobs), and does not
/// wait for the writes begun after it was asked.
@Suite struct WritesInFlightTests {
    @Test func anActionAskedInsideAWriteRunsAfterItsCommitAndNotAfterLaterWrites() throws {
        let harness = try ReconnectHarness(connections: 2)
        var events: [String] = []
        var releaseFirst = false
        var releaseSecond = false
        var asked = false
        harness.loop.startTask { [store = harness.store] in
            try? await store.writing { session in
                try await session.run(ReconnectHarness.insert, 1)
                store.afterWritesInFlight { events.append("action") }
                asked = true
                while !releaseFirst { _ = try await session.count("SELECT 1 AS n") }
            }
            events.append("first committed")
        }
        #expect(harness.loop.run(until: { asked }, within: .seconds(10)))
        // Begun after the action was asked: the action does not wait for it.
        harness.loop.startTask { [store = harness.store] in
            try? await store.writing { session in
                try await session.run(ReconnectHarness.insert, 2)
                while !releaseSecond { _ = try await session.count("SELECT 1 AS n") }
            }
            events.append("second committed")
        }
        harness.loop.run(until: { false }, within: .milliseconds(200))
        #expect(events.isEmpty)
        releaseFirst = true
        #expect(harness.loop.run(until: { events.contains("action") }, within: .seconds(10)))
        #expect(try harness.marks().contains(1))
        #expect(!events.contains("second committed"))
        releaseSecond = true
        #expect(harness.loop.run(until: { events.count == 3 }, within: .seconds(10)))
        #expect(events.firstIndex(of: "action")! < events.firstIndex(of: "second committed")!)
    }

    @Test func withNoWriteInFlightTheActionRunsAtOnce() throws {
        let harness = try ReconnectHarness()
        var ran = false
        harness.store.afterWritesInFlight { ran = true }
        #expect(ran)
    }
}
