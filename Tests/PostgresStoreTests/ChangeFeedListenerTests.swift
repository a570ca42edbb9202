import EventLoop
import Postgres
@testable import PostgresStore
import Relaydeck
import Testing
import TestSupport

/// `ChangeFeedListener` on a real PostgreSQL: another node's changes arrive in commit order
/// and its own are passed over; after its server process is ended, and after the server is
/// stopped and started again, it connects again and reads what it missed, nothing lost or
/// doubled; rows pruned or unreadable are told as missed.
@Suite struct ChangeFeedListenerTests {
    /// A listener of node `node-a` on `feed`'s database, what it handed on, and a session of
    /// node `node-b`'s to write with.
    final class Node {
        let feed: FeedHarness
        let listener: ChangeFeedListener
        var received: [Change] = []
        var missed = 0

        init(_ feed: FeedHarness, after: Int64? = nil, start: Bool = true) throws {
            self.feed = feed
            let connector = try PostgresConnector(settings: feed.driver.settings(database: feed.database), loop: feed.loop)
            listener = ChangeFeedListener(connector: connector, loop: feed.loop, node: "node-a", after: after)
            listener.onChange = { [unowned self] in received.append($0) }
            listener.onMissed = { [unowned self] in missed += 1 }
            if start { try self.start() }
        }

        func start() throws {
            listener.start()
            feed.driver.run { self.listener.isListening }
            try #require(listener.isListening, "the listener did not listen within 60 s")
        }

        func waitFor(_ count: Int) {
            feed.driver.run { self.received.count >= count }
        }

        deinit { listener.stop() }
    }

    static func changes(_ numbers: ClosedRange<Int>) -> [Change] { numbers.map { FeedHarness.change($0) } }

    @Test func anotherNodesChangesArriveInCommitOrderAndItsOwnArePassedOver() throws {
        let feed = try FeedHarness()
        let writer = try feed.session()
        // Before the node started: not its to catch up on.
        try feed.commit([FeedHarness.change(0)], node: "node-b", on: writer)
        let node = try Node(feed)
        #expect(node.listener.last == 1)
        try feed.commit(Self.changes(1...2), node: "node-b", on: writer)
        try feed.commit([FeedHarness.change(3)], node: "node-a", on: writer)
        try feed.commit([FeedHarness.change(4, account: "acc_2")], node: "node-b", on: writer)
        node.waitFor(3)
        feed.driver.run { node.listener.last == 5 }
        #expect(node.received == [FeedHarness.change(1), FeedHarness.change(2), FeedHarness.change(4, account: "acc_2")])
        #expect(node.missed == 0 && node.listener.connections == 1)
    }

    @Test func moreChangesThanAPageArriveAllInOrder() throws {
        let feed = try FeedHarness()
        let node = try Node(feed)
        node.listener.pageSize = 2
        let writer = try feed.session()
        try feed.commit(Self.changes(1...7), node: "node-b", on: writer)
        node.waitFor(7)
        #expect(node.received == Self.changes(1...7))
    }

    @Test func afterItsServerProcessIsEndedItReadsWhatItMissedOnce() throws {
        let feed = try FeedHarness()
        let node = try Node(feed)
        node.listener.backoff = ReconnectBackoff(first: .milliseconds(300))
        let writer = try feed.session()
        try feed.commit(Self.changes(1...1), node: "node-b", on: writer)
        node.waitFor(1)
        let pid = try #require(node.listener.processID)
        let admin = try feed.driver.open(feed.database, user: "rd_admin")
        _ = try feed.driver.query(admin, "SELECT pg_terminate_backend($1)", [.integer(Int64(pid))])
        feed.driver.run { !node.listener.isListening }
        // Committed while it has no connection: no notification reaches it.
        try feed.commit(Self.changes(2...3), node: "node-b", on: writer)
        #expect(node.received.count == 1)
        node.waitFor(3)
        #expect(node.listener.connections == 2 && node.listener.processID != pid)
        try feed.commit(Self.changes(4...4), node: "node-b", on: writer)
        node.waitFor(4)
        #expect(node.received == Self.changes(1...4) && node.missed == 0)
    }

    @Test func afterTheServerIsStoppedAndStartedAgainItReadsWhatItMissedOnce() throws {
        let cluster = try PostgresCluster()
        let feed = try FeedHarness(cluster: cluster)
        let node = try Node(feed)
        node.listener.backoff = ReconnectBackoff(cap: .milliseconds(400))
        try feed.commit(Self.changes(1...1), node: "node-b", on: try feed.session())
        node.waitFor(1)
        cluster.beginStop()
        // Away for a second: its attempts fail meanwhile, each at most 400 ms after the last.
        _ = feed.loop.run(until: { false }, within: .seconds(1))
        #expect(!node.listener.isListening)
        try cluster.restart()
        let writer = try feed.session()
        try feed.commit(Self.changes(2...3), node: "node-b", on: writer)
        try feed.commit([FeedHarness.change(9)], node: "node-a", on: writer)
        node.waitFor(3)
        #expect(node.listener.isListening && node.listener.connections == 2)
        try feed.commit(Self.changes(4...4), node: "node-b", on: writer)
        node.waitFor(4)
        #expect(node.received == Self.changes(1...4) && node.missed == 0)
    }

    @Test func rowsPrunedBeforeItReadThemAreToldAsMissedAndTheRestArrive() throws {
        let feed = try FeedHarness()
        let writer = try feed.session()
        try feed.commit(Self.changes(1...3), node: "node-b", on: writer)
        _ = try feed.driver.query(writer.connection, "UPDATE change_feed SET at = at - interval '1 hour' WHERE seq <= 2")
        try feed.run { try await ChangeFeed.prune(in: writer) }
        let node = try Node(feed, after: 0)
        node.waitFor(1)
        #expect(node.missed == 1 && node.received == [FeedHarness.change(3)] && node.listener.last == 3)
    }

    @Test func aRowItCannotReadIsToldAsMissedAndTheNextArrive() throws {
        let feed = try FeedHarness()
        let node = try Node(feed)
        let writer = try feed.session()
        try feed.run {
            try await writer.begin()
            try await writer.run("UPDATE change_feed_head SET seq = seq + 1 WHERE id = 1")
            try await writer.run("INSERT INTO change_feed (seq, account_id, node, change) VALUES (1, 'acc_1', 'node-c', '{\"v\":2}')")
            try await writer.run("SELECT pg_notify('\(ChangeFeed.channel)', '1')")
            try await writer.commit()
        }
        try feed.commit(Self.changes(2...2), node: "node-b", on: writer)
        node.waitFor(1)
        #expect(node.missed == 1 && node.received == [FeedHarness.change(2)])
    }

    @Test func afterStopNothingArrives() throws {
        let feed = try FeedHarness()
        let node = try Node(feed)
        node.listener.stop()
        let writer = try feed.session()
        try feed.commit(Self.changes(1...1), node: "node-b", on: writer)
        _ = feed.loop.run(until: { false }, within: .milliseconds(300))
        #expect(node.received.isEmpty && !node.listener.isListening && node.listener.processID == nil)
    }
}
