import Clock
import EventLoop
import Postgres
@testable import PostgresStore
@testable import Relaydeck
import Testing

/// What two nodes on one database share, through the stores the daemon makes: a change one
/// node's write records reaches the other node's hub through the feed (and not when the
/// write rolls back), and a rate limit counted by one node holds for the other.
@Suite struct SeveralNodesTests {
    struct Boom: Error {}

    @Test func aChangeRecordedOnOneNodeIsPublishedOnTheOtherAfterItsCommitOnly() throws {
        let feed = try FeedHarness()
        let nodeA = try ChangeFeedListenerTests.Node(feed)
        let store = try feed.driver.sessionStore(feed.database)
        store.feedNode = "node-b"
        let hub = EventHub()
        var publishedOnB: [Change] = []
        hub.subscribe { publishedOnB.append($0) }
        let first = FeedHarness.change(1), undone = FeedHarness.change(2), second = FeedHarness.change(3)
        try feed.run { try await store.writing(hub: hub) { _, turn in try await turn.record(first) } }
        #expect(throws: Boom.self) {
            try feed.run { try await store.writing(hub: hub) { _, turn in
                try await turn.record(undone)
                throw Boom()
            } }
        }
        try feed.run { try await store.writing(hub: hub) { _, turn in try await turn.record([second]) } }
        nodeA.waitFor(2)
        feed.driver.run { nodeA.listener.last == 2 }
        #expect(nodeA.received == [first, second])
        #expect(publishedOnB == [first, second])
        // Nothing of the rolled-back write is in the feed.
        #expect(try feed.read(after: 0, on: try feed.session()).changes == [first, second])
    }

    @Test func aWriteWithoutAFeedNodeWritesNoFeedRow() throws {
        let feed = try FeedHarness()
        let store = try feed.driver.sessionStore(feed.database)
        try feed.run { try await store.writing(hub: EventHub()) { _, turn in try await turn.record(FeedHarness.change(1)) } }
        #expect(try feed.read(after: 0, on: try feed.session()).entries.isEmpty)
    }

    /// Two nodes' stores count one credential's limit of 3 a minute: the fourth request is
    /// refused whichever node it reaches, with the seconds until one more fits.
    @Test func aRateLimitCountedOnOneNodeHoldsOnTheOther() throws {
        let feed = try FeedHarness()
        let clock = ManualClock(wallMillis: 1_760_000_000_000)
        let nodeA = RateCells(store: try feed.driver.sessionStore(feed.database), clock: clock)
        let nodeB = RateCells(store: try feed.driver.sessionStore(feed.database), clock: clock)
        let minute: Int64 = 60_000_000
        let take = { (cells: RateCells, subject: String) throws -> Int? in
            try feed.run { try await cells.take("requests", subject: subject, limit: 3, periodMicros: minute) }
        }
        #expect(try take(nodeA, "key_1") == nil)
        #expect(try take(nodeB, "key_1") == nil)
        #expect(try take(nodeA, "key_1") == nil)
        #expect(try take(nodeB, "key_1") == 20)
        #expect(try take(nodeA, "key_2") == nil)
        clock.advance(millis: 20_000)
        #expect(try take(nodeB, "key_1") == nil)
        #expect(try take(nodeA, "key_1") == 20)
        // A cell whose allowance is whole again goes with the prune, and counts as new.
        clock.advance(millis: 120_000)
        #expect(try feed.run { try await nodeA.prune() } == 2)
        #expect(try take(nodeB, "key_1") == nil)
    }
}
