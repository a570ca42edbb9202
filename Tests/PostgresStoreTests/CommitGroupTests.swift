import EventLoop
import Postgres
@testable import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// The group commit of recording writes on PostgreSQL (`CommitGroup`): the writes that come
/// while one runs share its transaction, run one after the other in the order they came, and
/// commit with one COMMIT and one change-feed row; a member that fails is rolled back alone; a
/// lost connection or a failed COMMIT fails every member that was waiting for it, and nothing
/// of theirs is published; a group has at most `CommitGroup.maxMembers`.
@Suite struct CommitGroupTests {
    /// A store of `connections` on a migrated database with a `marks` table, a hub whose
    /// publications the test reads, and writes started together as tasks.
    final class Harness {
        let feed: FeedHarness
        let store: PostgresSessionStore
        let hub = EventHub()
        /// The changes published, by their `n`.
        var published: [Int] = []
        /// Each write's transaction, outcome and order, by name.
        var transactions: [String: Int64] = [:]
        var ran: [String] = []
        var failures: [String: any Error] = [:]
        var ended: [String] = []
        private var subscription: EventHub.Subscription?

        init(connections: Int = 2) throws {
            feed = try FeedHarness()
            let owner = try feed.driver.open(feed.database)
            _ = try feed.driver.query(owner, "CREATE TABLE marks (id BIGINT PRIMARY KEY)")
            owner.close()
            store = try feed.driver.sessionStore(feed.database, connections: connections)
            store.feedNode = "node-a"
            subscription = hub.subscribe { [unowned self] change in
                if case .inboxUpdated(_, let unread) = change.event { published.append(unread) }
            }
        }

        var loop: EventLoop { feed.loop }

        /// Another store (a second node) on the same database.
        func secondStore() throws -> PostgresSessionStore {
            try feed.driver.sessionStore(feed.database, connections: 2)
        }

        /// Recording writes of `account` started in this order, each marking `n` (its name's
        /// number) and recording change `n`; `body` runs after that, inside the write.
        func start(_ numbers: [Int], account: String = "acc_1", on other: PostgresSessionStore? = nil,
                   body: @escaping (Int, any StoreSession) async throws -> Void = { _, _ in }) {
            for n in numbers {
                let name = "w\(n)"
                loop.startTask { [store = other ?? store, hub] in
                    do {
                        try await store.writing(hub: hub, account: account) { session, turn in
                            self.ran.append(name)
                            self.transactions[name] = try await session.count("SELECT txid_current() AS n").int64
                            try await session.run("INSERT INTO marks (id) VALUES ($1)", .integer(Int64(n)))
                            try await turn.record(FeedHarness.change(n))
                            try await body(n, session)
                        }
                    } catch {
                        self.failures[name] = error
                    }
                    self.ended.append(name)
                }
            }
        }

        func waitForAll(_ count: Int) {
            #expect(loop.run(until: { self.ended.count == count }, within: .seconds(20)))
        }

        func marks() throws -> [Int64] {
            let reader = try feed.driver.open(feed.database)
            defer { reader.close() }
            return try feed.driver.query(reader, "SELECT id FROM marks ORDER BY id").map { try $0.int64("id") }
        }

        /// The feed's rows for the other nodes, by their changes' `n`.
        func fed() throws -> [Int] {
            try feed.read(after: 0, on: try feed.session()).changes.compactMap { change in
                if case .inboxUpdated(_, let unread) = change.event { return unread }
                return nil
            }
        }
    }

    @Test func writesThatComeWhileOneRunsShareItsTransactionAndCommitInTheOrderTheyCame() throws {
        let harness = try Harness()
        harness.start(Array(1...6))
        harness.waitForAll(6)
        #expect(harness.failures.isEmpty)
        #expect(harness.ran == ["w1", "w2", "w3", "w4", "w5", "w6"])
        // One transaction for all six: the first's, the others joined while it ran.
        #expect(Set(harness.transactions.values).count == 1)
        #expect(try harness.marks() == [1, 2, 3, 4, 5, 6])
        #expect(harness.published == [1, 2, 3, 4, 5, 6])
        #expect(try harness.fed() == [1, 2, 3, 4, 5, 6])
        #expect(harness.store.heldCount == 0)
    }

    @Test func aWriteThatComesAloneCommitsAlone() throws {
        let harness = try Harness()
        harness.start([1])
        harness.waitForAll(1)
        harness.start([2])
        harness.waitForAll(2)
        #expect(harness.failures.isEmpty)
        #expect(harness.transactions["w1"] != harness.transactions["w2"])
        #expect(try harness.marks() == [1, 2])
        #expect(harness.published == [1, 2])
    }

    @Test func aMemberThatThrowsIsRolledBackAloneAndTheOthersCommit() throws {
        struct Refused: Error {}
        let harness = try Harness()
        harness.start([1, 2, 3, 4]) { n, session in
            if n == 2 { throw Refused() }
            // A statement that fails: the transaction is failed until its savepoint is rolled back.
            if n == 3 { try await session.run("INSERT INTO marks (id) VALUES ($1)", 1) }
        }
        harness.waitForAll(4)
        #expect(Set(harness.transactions.values).count == 1)
        #expect(harness.failures["w2"] is Refused)
        #expect(harness.failures["w3"] != nil && !(harness.failures["w3"] is Refused))
        #expect(harness.failures.count == 2)
        #expect(try harness.marks() == [1, 4])
        #expect(harness.published == [1, 4])
        #expect(try harness.fed() == [1, 4])
    }

    @Test func aFailedMemberAnswersAtOnceWithoutWaitingForTheCommit() throws {
        struct Refused: Error {}
        let harness = try Harness()
        var release = false
        harness.start([1, 2, 3]) { n, session in
            if n == 2 { throw Refused() }
            while n == 3 && !release { _ = try await session.count("SELECT 1 AS n") }
        }
        #expect(harness.loop.run(until: { harness.ended == ["w2"] }, within: .seconds(10)))
        #expect(try harness.marks() == [])
        release = true
        harness.waitForAll(3)
        #expect(try harness.marks() == [1, 3])
    }

    @Test func aLostConnectionFailsEveryMemberAndNothingIsPublished() throws {
        let harness = try Harness()
        let admin = try harness.feed.driver.open("postgres", user: "rd_admin")
        harness.start([1, 2, 3]) { n, session in
            guard n == 2 else { return }
            let pid = try await session.count("SELECT pg_backend_pid() AS n")
            try await ReconnectHarness.terminate(pid, on: admin)
            _ = try await session.count("SELECT 1 AS n")
        }
        harness.waitForAll(3)
        #expect(harness.failures.count == 3)
        for name in ["w1", "w2", "w3"] {
            #expect(isUnavailable(harness.failures[name].map { Result<Void, any Error>.failure($0) }), "\(name)")
        }
        #expect(try harness.marks() == [])
        #expect(harness.published.isEmpty)
        #expect(try harness.fed() == [])
    }

    @Test func aCommitThatFailsFailsEveryMemberThatReturned() throws {
        let harness = try Harness()
        let owner = try harness.feed.driver.open(harness.feed.database)
        _ = try harness.feed.driver.query(owner, """
            CREATE TABLE once (id BIGINT, CONSTRAINT once_only UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)
            """)
        // Each member alone is fine; together they break the deferred constraint at COMMIT.
        harness.start([1, 2]) { _, session in
            try await session.run("INSERT INTO once (id) VALUES (7)")
        }
        harness.waitForAll(2)
        #expect(harness.failures.count == 2)
        #expect(try harness.marks() == [])
        #expect(harness.published.isEmpty)
        #expect(try harness.fed() == [])
        #expect(harness.store.heldCount == 0)
    }

    @Test func aRecordingWriteStartedInsideAMemberIsATransactionOfItsOwn() throws {
        let harness = try Harness()
        var inner: Int64?
        harness.start([1]) { _, _ in
            inner = try await harness.store.writing(hub: harness.hub, account: "acc_1") { session, turn in
                try await session.run("INSERT INTO marks (id) VALUES (100)")
                try await turn.record(FeedHarness.change(100))
                return try await session.count("SELECT txid_current() AS n").int64
            }
        }
        harness.waitForAll(1)
        #expect(harness.failures.isEmpty)
        #expect(inner != nil && inner != harness.transactions["w1"])
        #expect(try harness.marks() == [1, 100])
        #expect(harness.published == [100, 1])
    }

    @Test func aGroupTakesAtMostItsMostMembersAndTheRestStartAnother() throws {
        let harness = try Harness()
        let count = CommitGroup.maxMembers + 5
        harness.start(Array(1...count))
        harness.waitForAll(count)
        #expect(harness.failures.isEmpty)
        let firsts = (1...CommitGroup.maxMembers).compactMap { harness.transactions["w\($0)"] }
        let rest = ((CommitGroup.maxMembers + 1)...count).compactMap { harness.transactions["w\($0)"] }
        #expect(Set(firsts).count == 1 && Set(rest).count == 1 && firsts.first != rest.first)
        #expect(try harness.marks().count == count)
        #expect(harness.published.count == count)
    }

    @Test func writesOfAnotherAccountOrOfNoneAreNotInTheGroup() throws {
        let harness = try Harness()
        var release = false
        harness.start([1, 2]) { n, session in
            while n == 1 && !release { _ = try await session.count("SELECT 1 AS n") }
        }
        harness.start([3], account: "acc_2")
        // A job's write (no one account): a transaction of its own.
        var job: Int64?
        harness.loop.startTask {
            job = try? await harness.store.writing(hub: harness.hub) { session, _ in
                try await session.count("SELECT txid_current() AS n").int64
            }
        }
        #expect(harness.loop.run(until: { harness.ended == ["w3"] && job != nil }, within: .seconds(10)))
        release = true
        harness.waitForAll(3)
        #expect(harness.failures.isEmpty)
        #expect(harness.transactions["w1"] == harness.transactions["w2"])
        #expect(harness.transactions["w3"] != harness.transactions["w1"])
        #expect(job != nil && job != harness.transactions["w1"] && job != harness.transactions["w3"])
        #expect(try harness.marks() == [1, 2, 3])
    }

    /// Two nodes' groups of one account, each locking the same two rows in the other order:
    /// side by side they would deadlock (PostgreSQL ends one after a second, and that write
    /// fails); the account's lock, taken first, makes the second group wait for the first's
    /// COMMIT holding nothing.
    @Test func twoNodesGroupsOfOneAccountRunOneAfterTheOtherWithoutADeadlock() throws {
        let harness = try Harness()
        let other = try harness.secondStore()
        _ = try harness.feed.run {
            try await harness.store.writing { session in
                try await session.run("INSERT INTO marks (id) VALUES (1001), (1002)")
            }
        }
        var locked = 0
        let lock = "SELECT id AS n FROM marks WHERE id = $1 FOR UPDATE"
        harness.start([1]) { _, session in
            _ = try await session.count(lock, 1001)
            locked += 1
            // Until the other node's group has begun (or 300 ms: with the account's lock it waits).
            for _ in 0..<30 where locked < 2 { _ = try await session.count("SELECT count(*) AS n FROM pg_sleep(0.01)") }
            _ = try await session.count(lock, 1002)
        }
        harness.start([2], on: other) { _, session in
            _ = try await session.count(lock, 1002)
            locked += 1
            _ = try await session.count(lock, 1001)
        }
        harness.waitForAll(2)
        #expect(harness.failures.isEmpty, "\(harness.failures)")
        #expect(try harness.marks() == [1, 2, 1001, 1002])
        other.stop()
    }
}

private extension Int {
    var int64: Int64 { Int64(self) }
}
