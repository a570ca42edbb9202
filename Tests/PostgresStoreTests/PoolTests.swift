import EventLoop
import Postgres
import PostgresStore
import Relaydeck
import SQLite
import Testing
import TestSupport

/// `PostgresSessionStore`'s pool on a real PostgreSQL: as many bodies run at once as it has
/// connections, each on one of its own, the others waiting in the order they came; a long
/// body holds back no one while a connection is free; a connection lost while others are up
/// keeps the bodies in line waiting for those; the last one lost refuses them; a transaction
/// that loses a deadlock to another connection's answers unavailable (the client's retry).
@Suite struct PoolTests {
    /// Bodies started together, each recording when it began and ended; `hold` is what each
    /// does while it holds its connection.
    final class Bodies {
        var began: [String] = []
        var ended: [String] = []
        var failures: [String: any Error] = [:]
        var backends: [String: Int] = [:]

        /// Each a write (BEGIN ... COMMIT), or with `reading` a body that begins the moment it
        /// has its connection (no BEGIN to await first), so that `began` is the order taken.
        func start(_ names: [String], on harness: ReconnectHarness, reading: Bool = false,
                   hold: @escaping (String, any StoreSession) async throws -> Void) {
            for name in names {
                harness.loop.startTask { [store = harness.store] in
                    let body: (any StoreSession) async throws -> Void = { session in
                        self.began.append(name)
                        self.backends[name] = try await session.count(ReconnectHarness.backendPID)
                        try await hold(name, session)
                    }
                    do {
                        if reading {
                            try await store.reading(body)
                        } else {
                            try await store.writing(body)
                        }
                    } catch {
                        self.failures[name] = error
                    }
                    self.ended.append(name)
                }
            }
        }
    }

    @Test func asManyBodiesRunAtOnceAsThePoolHasConnectionsAndTheRestWaitInTheOrderTheyCame() throws {
        let harness = try ReconnectHarness(connections: 3)
        let bodies = Bodies()
        var release = false
        var mostHeld = 0
        bodies.start(["a", "b", "c", "d", "e"], on: harness, reading: true) { _, session in
            try await session.run(ReconnectHarness.insert, .integer(Int64(UInt32.random(in: 0...UInt32.max))))
            // Held until the test lets go: each asks the database again and again.
            while !release {
                mostHeld = max(mostHeld, harness.store.heldCount)
                _ = try await session.count("SELECT 1 AS n")
            }
        }
        #expect(harness.store.waitingCount == 2)
        #expect(harness.loop.run(until: { bodies.began.count == 3 }, within: .seconds(10)))
        harness.loop.run(until: { false }, within: .milliseconds(100))
        #expect(bodies.began.sorted() == ["a", "b", "c"])
        #expect(Set(bodies.backends.values).count == 3)
        release = true
        #expect(harness.loop.run(until: { bodies.ended.count == 5 }, within: .seconds(10)))
        #expect(bodies.failures.isEmpty)
        #expect(Array(bodies.began.suffix(2)) == ["d", "e"])
        #expect(mostHeld == 3)
        #expect(harness.store.heldCount == 0 && harness.store.waitingCount == 0)
        #expect(try harness.marks().count == 5)
    }

    @Test func aStartedPoolKeepsOneConnectionUntilBodiesMeetAndThenOpensAPlaceForEachThatWaits() throws {
        let harness = try ReconnectHarness(connections: 1)
        let store = try harness.driver.sessionStore(harness.database, connections: 3, opening: 1)
        // Quiet, it keeps its first connection only, however long it runs.
        for _ in 0..<20 {
            _ = try harness.run { try await store.reading { try await $0.count("SELECT 1 AS n") } }.get()
        }
        harness.loop.run(until: { false }, within: .milliseconds(100))
        #expect(store.connectedCount == 1)
        // Four bodies at once: three places opened, the fourth body waits for one of them.
        var release = false
        var backends: [Int] = []
        var ended = 0
        for _ in 0..<4 {
            harness.loop.startTask {
                try? await store.reading { session in
                    backends.append(try await session.count(ReconnectHarness.backendPID))
                    while !release { _ = try await session.count("SELECT 1 AS n") }
                }
                ended += 1
            }
        }
        #expect(harness.loop.run(until: { backends.count == 3 }, within: .seconds(10)))
        #expect(Set(backends).count == 3 && store.connectedCount == 3 && store.waitingCount == 1)
        release = true
        #expect(harness.loop.run(until: { ended == 4 }, within: .seconds(10)))
        #expect(backends.count == 4 && store.connectedCount == 3)
        store.stop()
    }

    @Test func aLongBodyHoldsBackNoOneWhileAConnectionIsFree() throws {
        let harness = try ReconnectHarness(connections: 2)
        let bodies = Bodies()
        bodies.start(["slow"], on: harness) { _, session in
            _ = try await session.count("SELECT count(*) AS n FROM pg_sleep(2)")
        }
        let started = harness.loop.now
        let quick = try harness.run { try await harness.store.reading { try await $0.count("SELECT 7 AS n") } }
        #expect(try quick.get() == 7)
        #expect(harness.loop.now - started < .seconds(1))
        #expect(bodies.ended.isEmpty)
        #expect(harness.loop.run(until: { bodies.ended == ["slow"] }, within: .seconds(10)))
    }

    @Test func aConnectionLostWhileAnotherIsUpLeavesTheBodiesInLineToTheOther() throws {
        // The lost place is not made again before the test releases the holder (a loaded
        // machine would otherwise hand the line the new connection first).
        let harness = try ReconnectHarness(connections: 2, backoff: ReconnectBackoff(first: .seconds(3), cap: .seconds(3)))
        let bodies = Bodies()
        var release = false
        bodies.start(["victim", "holder", "third", "fourth"], on: harness) { name, session in
            try await session.run(ReconnectHarness.insert, .integer(["victim": 1, "holder": 2, "third": 3, "fourth": 4][name]!))
            if name == "victim" {
                try await harness.terminate(try await session.count(ReconnectHarness.backendPID))
                try await session.run(ReconnectHarness.insert, 10)
            }
            while name == "holder" && !release { _ = try await session.count("SELECT 1 AS n") }
        }
        #expect(harness.loop.run(until: { bodies.ended == ["victim"] }, within: .seconds(10)))
        #expect(isUnavailable(bodies.failures["victim"].map { Result<Void, any Error>.failure($0) }))
        // The store stayed available: one connection was up all along.
        #expect(harness.changes.isEmpty)
        release = true
        #expect(harness.loop.run(until: { bodies.ended.count == 4 }, within: .seconds(10)))
        #expect(bodies.failures.keys.sorted() == ["victim"])
        #expect(try harness.marks() == [2, 3, 4])
        // The lost place connects again by itself.
        #expect(harness.loop.run(until: { harness.store.connectedCount == 2 }, within: .seconds(10)))
    }

    @Test func theLastConnectionLostRefusesTheBodiesInLine() throws {
        // No connection is made again within the test (a loaded machine could otherwise
        // bring one back between the two losses).
        let harness = try ReconnectHarness(connections: 2, backoff: ReconnectBackoff(first: .seconds(3), cap: .seconds(3)))
        let bodies = Bodies()
        var ended = false
        bodies.start(["first", "second", "third", "fourth"], on: harness) { name, session in
            guard name == "first" || name == "second" else { return }
            // Both hold their connection until the test has ended both backends.
            while !ended { _ = try await session.count("SELECT 1 AS n") }
        }
        #expect(harness.store.waitingCount == 2)
        #expect(harness.loop.run(until: { bodies.backends.count == 2 }, within: .seconds(10)))
        for pid in bodies.backends.values { try harness.terminateNow(pid) }
        ended = true
        #expect(harness.loop.run(until: { bodies.ended.count == 4 }, within: .seconds(10)))
        #expect(Set(bodies.began) == ["first", "second"])
        for name in ["first", "second", "third", "fourth"] {
            #expect(isUnavailable(bodies.failures[name].map { Result<Void, any Error>.failure($0) }), "\(name)")
        }
        #expect(harness.changes.first == false)
        #expect(harness.loop.run(until: { harness.store.connectedCount == 2 }, within: .seconds(10)))
        #expect(harness.changes == [false, true])
    }

    @Test func aTransactionThatLosesADeadlockAnswersUnavailableAndTheOtherCommits() throws {
        let harness = try ReconnectHarness(connections: 2)
        _ = try harness.run {
            try await harness.store.writing { session in
                try await session.run(ReconnectHarness.insert, 1)
                try await session.run(ReconnectHarness.insert, 2)
            }
        }.get()
        let bodies = Bodies()
        var locked = 0
        bodies.start(["one", "two"], on: harness) { name, session in
            let (first, second) = name == "one" ? (1, 2) : (2, 1)
            try await session.run("UPDATE marks SET id = id WHERE id = $1", .integer(Int64(first)))
            locked += 1
            while locked < 2 { _ = try await session.count("SELECT 1 AS n") }
            try await session.run("UPDATE marks SET id = id WHERE id = $1", .integer(Int64(second)))
        }
        #expect(harness.loop.run(until: { bodies.ended.count == 2 }, within: .seconds(10)))
        // PostgreSQL ends one of the two (deadlock_timeout, 1 s by default); the other goes on.
        #expect(bodies.failures.count == 1)
        #expect(bodies.failures.values.allSatisfy { isUnavailable(Result<Void, any Error>.failure($0)) })
        #expect(harness.store.connectedCount == 2)
    }
}
