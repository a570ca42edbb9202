import EventLoop
import Postgres
@testable import PostgresStore
import Relaydeck
import Testing

/// `ChangeFeed.prune` and what a reader is told after it: rows older than the retention go,
/// lowest numbers first and at most `limit` at a time; a reader whose next row went is told
/// it missed rows and where to go on from; one that had read them is not.
@Suite struct ChangeFeedPruneTests {
    /// Rows `1...count` appended, those up to `old` written an hour ago.
    static func feed(count: Int, old: Int) throws -> (FeedHarness, PostgresSession) {
        let feed = try FeedHarness()
        let session = try feed.session()
        try feed.commit((1...count).map { FeedHarness.change($0) }, node: "node-a", on: session)
        _ = try feed.driver.query(session.connection, "UPDATE change_feed SET at = at - interval '1 hour' WHERE seq <= $1",
                                  [.integer(Int64(old))])
        return (feed, session)
    }

    @Test func rowsOlderThanTheRetentionGoAndNewerOnesStay() throws {
        let (feed, session) = try Self.feed(count: 5, old: 3)
        #expect(try feed.run { try await ChangeFeed.prune(in: session) } == 3)
        #expect(try feed.run { try await ChangeFeed.prune(in: session) } == 0)
        #expect(try feed.read(after: 3, on: session).seqs == [4, 5])
        // Written just now: only a retention shorter than their age removes them.
        #expect(try feed.run { try await ChangeFeed.prune(olderThan: .seconds(60), in: session) } == 0)
        #expect(try feed.run { try await ChangeFeed.prune(olderThan: .zero, in: session) } == 2)
        #expect(try feed.read(after: 5, on: session).entries.isEmpty)
    }

    @Test func aPruneRemovesAtMostItsLimitLowestNumbersFirst() throws {
        let (feed, session) = try Self.feed(count: 5, old: 5)
        #expect(try feed.run { try await ChangeFeed.prune(limit: 2, in: session) } == 2)
        #expect(try feed.read(after: 2, on: session).seqs == [3, 4, 5])
        #expect(try feed.run { try await ChangeFeed.prune(limit: 2, in: session) } == 2)
        #expect(try feed.run { try await ChangeFeed.prune(limit: 2, in: session) } == 1)
        #expect(try feed.run { try await ChangeFeed.prune(limit: 2, in: session) } == 0)
    }

    @Test func aReaderWhoseNextRowWasPrunedIsToldItMissedRows() throws {
        let (feed, session) = try Self.feed(count: 5, old: 2)
        try feed.run { try await ChangeFeed.prune(in: session) }
        let away = try feed.read(after: 0, on: session)
        #expect(away.missed && away.seqs == [3, 4, 5] && away.last == 5)
        let almost = try feed.read(after: 1, on: session)
        #expect(almost.missed && almost.seqs == [3, 4, 5])
        // It had read the pruned rows: nothing missed.
        let caughtUp = try feed.read(after: 2, on: session)
        #expect(!caughtUp.missed && caughtUp.seqs == [3, 4, 5])
    }

    @Test func aReaderAwayWhileEveryRowWentIsToldSoAndGoesOnFromTheHead() throws {
        let (feed, session) = try Self.feed(count: 4, old: 4)
        try feed.run { try await ChangeFeed.prune(in: session) }
        let away = try feed.read(after: 1, on: session)
        #expect(away.missed && away.entries.isEmpty && away.head == 4 && away.last == 4)
        let caughtUp = try feed.read(after: 4, on: session)
        #expect(!caughtUp.missed && caughtUp.entries.isEmpty && caughtUp.last == 4)
        try feed.commit([FeedHarness.change(5)], node: "node-b", on: session)
        let next = try feed.read(after: away.last, on: session)
        #expect(!next.missed && next.seqs == [5])
    }

    /// A number past the head: the feed is not the one the reader read (a database restored
    /// or copied again).
    @Test func aReaderPastTheHeadIsToldItMissedRowsAndGoesBackToTheHead() throws {
        let (feed, session) = try Self.feed(count: 2, old: 0)
        let page = try feed.read(after: 9, on: session)
        #expect(page.missed && page.entries.isEmpty && page.last == 2)
    }
}
