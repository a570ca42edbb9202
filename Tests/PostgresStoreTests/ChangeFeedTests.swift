import EventLoop
import Postgres
@testable import PostgresStore
import Relaydeck
import Testing

/// `ChangeFeed` on a real PostgreSQL: changes appended in a transaction are read back in the
/// order of the commits, with their nodes; NOTIFY comes with the COMMIT and never with a
/// ROLLBACK; two appends that overlap commit in the order of their numbers; pruning leaves a
/// run without holes and a reader who was away is told it missed rows.
@Suite struct ChangeFeedTests {
    @Test func appendedChangesAreReadBackInOrderWithTheirNodes() throws {
        let feed = try FeedHarness()
        let a = try feed.session()
        let b = try feed.session()
        let first = [FeedHarness.change(1), FeedHarness.change(2, account: "acc_2"), FeedHarness.change(3)]
        #expect(try feed.commit(first, node: "node-a", on: a) == 3)
        #expect(try feed.commit([FeedHarness.change(4), FeedHarness.change(5)], node: "node-b", on: b) == 5)
        #expect(try feed.commit([], node: "node-b", on: b) == nil)
        let page = try feed.read(after: 0, on: a)
        #expect(page.seqs == [1, 2, 3, 4, 5])
        #expect(page.entries.map(\.node) == ["node-a", "node-a", "node-a", "node-b", "node-b"])
        #expect(page.changes == first + [FeedHarness.change(4), FeedHarness.change(5)])
        #expect(!page.missed && page.head == 5 && page.last == 5)
        let rows = try feed.driver.query(a.connection, "SELECT account_id FROM change_feed ORDER BY seq")
        #expect(try rows.map { try $0.text("account_id") } == ["acc_1", "acc_2", "acc_1", "acc_1", "acc_1"])
        let middle = try feed.read(after: 2, limit: 2, on: b)
        #expect(middle.seqs == [3, 4] && !middle.missed && middle.last == 4)
        let end = try feed.read(after: 5, on: b)
        #expect(end.entries.isEmpty && !end.missed && end.last == 5)
    }

    @Test func everyFieldOfAChangeComesBackFromTheDatabase() throws {
        let feed = try FeedHarness()
        let session = try feed.session()
        let task = ChangeFeedTaskSample.task
        let change = Change(accountID: task.accountID, event: .taskUpdated(task), actor: .key(task.keyID), previous: ChangeFeedTaskSample.before)
        try feed.commit([change], node: "node-a", on: session)
        let read = try #require(try feed.read(after: 0, on: session).entries.first?.change.get())
        #expect(read == change)
        #expect(read.previous == ChangeFeedTaskSample.before)
    }

    @Test func theNotificationComesWithTheCommitAndNamesTheLastNumber() throws {
        let feed = try FeedHarness()
        let listener = try feed.driver.open(feed.database)
        var payloads: [String] = []
        listener.onNotification = { payloads.append($0.payload) }
        _ = try feed.driver.query(listener, "LISTEN \(ChangeFeed.channel)")
        let writer = try feed.session()
        try feed.run {
            try await writer.begin()
            try await ChangeFeed.append([FeedHarness.change(1), FeedHarness.change(2)], node: "node-a", in: writer)
        }
        // A round trip of the listener's own: anything already sent would have come first.
        _ = try feed.driver.query(listener, "SELECT 1")
        #expect(payloads.isEmpty)
        try feed.run { try await writer.commit() }
        feed.driver.run { !payloads.isEmpty }
        #expect(payloads == ["2"])
    }

    @Test func aRolledBackAppendLeavesNoRowNoNumberAndNoNotification() throws {
        let feed = try FeedHarness()
        let listener = try feed.driver.open(feed.database)
        var payloads: [String] = []
        listener.onNotification = { payloads.append($0.payload) }
        _ = try feed.driver.query(listener, "LISTEN \(ChangeFeed.channel)")
        let session = try feed.session()
        try feed.run {
            try await session.begin()
            try await ChangeFeed.append([FeedHarness.change(1)], node: "node-a", in: session)
            try await session.rollback()
        }
        #expect(try feed.read(after: 0, on: session).entries.isEmpty)
        #expect(try feed.run { try await ChangeFeed.head(in: session) } == 0)
        #expect(try feed.commit([FeedHarness.change(2)], node: "node-a", on: session) == 1)
        feed.driver.run { !payloads.isEmpty }
        _ = try feed.driver.query(listener, "SELECT 1")
        // Notifications come in commit order: the rolled-back one would have come first.
        #expect(payloads == ["1"])
        #expect(try feed.read(after: 0, on: session).changes == [FeedHarness.change(2)])
    }

    /// The second append waits for the first transaction's end: it cannot take a number
    /// below one a later COMMIT gives, so a reader past a number never skips a row.
    @Test func overlappingAppendsCommitInTheOrderOfTheirNumbers() throws {
        let feed = try FeedHarness()
        let first = try feed.session()
        let second = try feed.session()
        let reader = try feed.session()
        try feed.run {
            try await first.begin()
            try await second.begin()
            try await ChangeFeed.append([FeedHarness.change(1)], node: "node-a", in: first)
        }
        var secondNumber: Int64?
        feed.loop.startTask {
            secondNumber = try? await ChangeFeed.append([FeedHarness.change(2), FeedHarness.change(3)], node: "node-b", in: second)
        }
        #expect(try feed.appendsWaiting(on: reader.connection) == 1 && secondNumber == nil)
        #expect(try feed.read(after: 0, on: reader).entries.isEmpty)
        try feed.run { try await first.commit() }
        feed.driver.run { secondNumber != nil }
        #expect(secondNumber == 3)
        // Between the two COMMITs a reader sees the first, and after the second, both.
        let between = try feed.read(after: 0, on: reader)
        #expect(between.seqs == [1] && !between.missed)
        try feed.run { try await second.commit() }
        let after = try feed.read(after: between.last, on: reader)
        #expect(after.seqs == [2, 3] && after.changes == [FeedHarness.change(2), FeedHarness.change(3)] && !after.missed)
    }

    @Test func anAppendWaitingBehindARollbackTakesTheNumbersGivenBack() throws {
        let feed = try FeedHarness()
        let first = try feed.session()
        let second = try feed.session()
        try feed.run {
            try await first.begin()
            try await second.begin()
            try await ChangeFeed.append([FeedHarness.change(1)], node: "node-a", in: first)
        }
        var secondNumber: Int64?
        var committed = false
        feed.loop.startTask {
            secondNumber = try? await ChangeFeed.append([FeedHarness.change(2)], node: "node-b", in: second)
            committed = (try? await second.commit()) != nil
        }
        #expect(try feed.appendsWaiting(on: try feed.driver.open(feed.database)) == 1)
        try feed.run { try await first.rollback() }
        feed.driver.run { committed }
        #expect(secondNumber == 1)
        let page = try feed.read(after: 0, on: first)
        #expect(page.seqs == [1] && page.changes == [FeedHarness.change(2)] && !page.missed)
    }
}

/// A task and what it was before, with text JSON escapes and no field left at its default.
enum ChangeFeedTaskSample {
    static let task = WorkTask(
        id: "tsk_01jq0000000000000000000000", accountID: "acc_01jq0000000000000000000000",
        keyID: "key_01jq0000000000000000000000", title: "Ship \"it\" \\ now", description: "Line one\nline\ttwo\u{0B} 👍🏽 \u{1}",
        status: .done, priority: .urgent, notify: true, progress: 100, statusNote: "done, ✅", source: .agent,
        createdAt: 1_760_000_000_123, updatedAt: 1_760_000_100_456, completedAt: 1_760_000_100_456, seenAt: 1_760_000_050_000,
        host: "studio-mac")
    static var before: WorkTask {
        var task = task
        task.status = .inProgress
        task.progress = 90
        task.completedAt = nil
        return task
    }
}
