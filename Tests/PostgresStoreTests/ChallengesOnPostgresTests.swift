import EventLoop
import Postgres
import PostgresStore
@testable import Relaydeck
import Testing

/// `SharedChallenges` on a real PostgreSQL, each node a store of its own on one database: a
/// challenge works once, for its lifetime, a failed attempt uses it too, a book holds at most
/// its capacity of live ones, and what one node gave out the other uses, once even when both
/// try at the same instant.
@Suite struct ChallengesOnPostgresTests {
    static let lifetime: Int64 = 300_000

    /// Two nodes' stores on one migrated database.
    final class Nodes {
        let feed: FeedHarness
        let a: PostgresSessionStore
        let b: PostgresSessionStore

        init() throws {
            feed = try FeedHarness()
            a = try feed.driver.sessionStore(feed.database)
            b = try feed.driver.sessionStore(feed.database)
        }

        func book(_ store: PostgresSessionStore, _ kind: SharedChallenges.Kind = .passkey, capacity: Int = 10) -> SharedChallenges {
            SharedChallenges(store: store, kind: kind, capacity: capacity, lifetimeMillis: ChallengesOnPostgresTests.lifetime)
        }

        func issue(_ book: SharedChallenges, _ challenge: [UInt8], owner: String = "", at now: Int64) throws -> Bool {
            try feed.run { try await book.issue(challenge, owner: owner, nowMillis: now) }
        }

        func use(_ book: SharedChallenges, _ challenge: [UInt8], owner: String = "", at now: Int64) throws -> Bool {
            try feed.run { try await book.use(challenge, owner: owner, nowMillis: now) }
        }

        func count(_ book: SharedChallenges, at now: Int64) throws -> Int {
            try feed.run { try await book.count(nowMillis: now) }
        }
    }

    static func challenge(_ n: UInt8) -> [UInt8] { [UInt8](repeating: n, count: 32) }

    @Test func aChallengeWorksOnceAndOnlyForItsOwner() throws {
        let nodes = try Nodes()
        let book = nodes.book(nodes.a)
        #expect(try nodes.issue(book, Self.challenge(1), owner: "acc_1", at: 0))
        #expect(try nodes.use(book, Self.challenge(1), owner: "acc_1", at: 1))
        #expect(try !nodes.use(book, Self.challenge(1), owner: "acc_1", at: 2))
        #expect(try !nodes.use(book, Self.challenge(9), at: 0))
        // Offered by another account, it fails and is used up all the same.
        #expect(try nodes.issue(book, Self.challenge(2), owner: "acc_1", at: 0))
        #expect(try !nodes.use(book, Self.challenge(2), owner: "acc_2", at: 1))
        #expect(try !nodes.use(book, Self.challenge(2), owner: "acc_1", at: 2))
        #expect(try nodes.count(book, at: 3) == 0)
    }

    @Test func aChallengeWorksForThreeHundredSecondsAndAnExpiredAttemptUsesItToo() throws {
        let nodes = try Nodes()
        let book = nodes.book(nodes.a, .attest)
        #expect(try nodes.issue(book, Self.challenge(1), at: 1_000))
        #expect(try nodes.issue(book, Self.challenge(2), at: 1_000))
        #expect(try nodes.use(book, Self.challenge(1), at: 300_999))
        #expect(try !nodes.use(book, Self.challenge(2), at: 301_000))
        // The late attempt took the row: nothing is left to sweep.
        #expect(try nodes.feed.driver.query(try nodes.feed.driver.open(nodes.feed.database),
                                            "SELECT count(*) AS n FROM challenges")[0].int64("n") == 0)
    }

    @Test func eachBookUsesOnlyItsOwnChallenges() throws {
        let nodes = try Nodes()
        let attest = nodes.book(nodes.a, .attest), passkeys = nodes.book(nodes.a, .passkey)
        #expect(try nodes.issue(attest, Self.challenge(1), at: 0))
        #expect(try !nodes.use(passkeys, Self.challenge(1), at: 1))
        #expect(try nodes.use(attest, Self.challenge(1), at: 1))
    }

    @Test func aFullBookRefusesUntilItsChallengesExpireAndTheExpiredAreSwept() throws {
        let nodes = try Nodes()
        let book = nodes.book(nodes.a, capacity: 2)
        let other = nodes.book(nodes.b, .attest, capacity: 2)
        #expect(try nodes.issue(book, Self.challenge(1), at: 0))
        #expect(try nodes.issue(book, Self.challenge(2), at: 1_000))
        // Full on either node; the other book counts its own.
        #expect(try !nodes.issue(nodes.book(nodes.b, capacity: 2), Self.challenge(3), at: 299_999))
        #expect(try nodes.issue(other, Self.challenge(4), at: 299_999))
        // The first expired: it goes, and one more fits.
        #expect(try nodes.issue(book, Self.challenge(3), at: 300_000))
        #expect(try !nodes.issue(book, Self.challenge(5), at: 300_000))
        let connection = try nodes.feed.driver.open(nodes.feed.database)
        let kept = try nodes.feed.driver.query(connection, "SELECT kind, expires_at FROM challenges ORDER BY kind, expires_at")
        #expect(try kept.map { "\(try $0.text("kind")) \(try $0.int64("expires_at"))" }
                == ["attest 599999", "passkey 301000", "passkey 600000"])
    }

    @Test func aChallengeGivenByOneNodeWorksOnceOnTheOther() throws {
        let nodes = try Nodes()
        let onA = nodes.book(nodes.a, .attest), onB = nodes.book(nodes.b, .attest)
        #expect(try nodes.issue(onA, Self.challenge(1), at: 0))
        #expect(try nodes.use(onB, Self.challenge(1), at: 10))
        #expect(try !nodes.use(onA, Self.challenge(1), at: 20))
        #expect(try !nodes.use(onB, Self.challenge(1), at: 30))
    }

    @Test func twoNodesUsingOneChallengeAtOnceOneWins() throws {
        let nodes = try Nodes()
        let onA = nodes.book(nodes.a), onB = nodes.book(nodes.b)
        for round in UInt8(1)...20 {
            #expect(try nodes.issue(onA, Self.challenge(round), owner: "acc_1", at: 0))
            var outcomes: [Bool] = []
            var failures: [any Error] = []
            for book in [onA, onB] {
                nodes.feed.loop.startTask {
                    do { outcomes.append(try await book.use(Self.challenge(round), owner: "acc_1", nowMillis: 1)) } catch { failures.append(error) }
                }
            }
            nodes.feed.driver.run { outcomes.count + failures.count == 2 }
            #expect(failures.isEmpty)
            #expect(outcomes.sorted { !$0 && $1 } == [false, true])
        }
    }
}
