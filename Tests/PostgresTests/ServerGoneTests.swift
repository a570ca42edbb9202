#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Postgres

/// The server ends a session mid-query: the batch in flight fails with a typed error that
/// says "reconnect", `onClose` tells the owner, and nothing crashes or hangs.
@Suite struct ServerGoneTests {
    @Test func anAdministratorEndingTheSessionMidQueryIsUnavailable() throws {
        let cluster = PostgresCluster.shared
        let driver = try LoopDriver()
        let victim = try driver.open(cluster.settings("rd_scram"))
        let admin = try driver.open(cluster.settings("rd_admin"))
        defer { admin.close() }
        var closed: PostgresError?
        victim.onClose = { closed = $0 }
        var result: Result<BatchResult, PostgresError>?
        victim.run([PostgresQuery("SELECT pg_sleep(60)")]) { result = $0 }
        let pid = try #require(victim.processID)
        // pg_terminate_backend waits until the session is gone (its timeout, in ms).
        _ = try driver.query(admin, "SELECT pg_terminate_backend($1::int4, 20000)", [.integer(Int64(pid))]).get()
        driver.run { result != nil && closed != nil }
        guard case .failure(let error)? = result else {
            Issue.record("the batch did not fail: \(String(describing: result))")
            return
        }
        #expect(error.sqlState == "57P01")
        #expect(error.meaning == .unavailable(reconnect: true))
        #expect(closed == error)
        #expect(!victim.isOpen)
        // A batch after the end fails at once with the same reason.
        guard case .failure(let after) = try driver.run(victim, [PostgresQuery("SELECT 1")]) else {
            Issue.record("a closed connection ran a batch")
            return
        }
        #expect(after == error)
    }

    @Test func theServerKilledMidQueryIsAConnectionLost() throws {
        // A cluster of its own: killing a server process makes PostgreSQL restart every session.
        let cluster = try PostgresCluster()
        let driver = try LoopDriver()
        let connection = try driver.open(cluster.settings("rd_scram"))
        var result: Result<BatchResult, PostgresError>?
        connection.run([PostgresQuery("SELECT pg_sleep(60)")]) { result = $0 }
        driver.run { connection.batchesInFlight == 1 && connection.processID != nil }
        kill(try #require(connection.processID), SIGKILL)
        driver.run { result != nil }
        guard case .failure(let error)? = result else {
            Issue.record("the batch did not fail: \(String(describing: result))")
            return
        }
        #expect(error.kind == .connectionLost)
        #expect(error.meaning == .unavailable(reconnect: true))
        cluster.stop()
        // The server gone for good: a new connection fails, and says why. Through its Unix
        // socket, a path of this cluster's own: its loopback port, free again, may already be
        // another test's server (tests run in parallel), one that takes the connection and
        // never answers, and the connect would time out instead (seen once under make test).
        let gone = PostgresSettings(endpoint: .unix(directory: cluster.directory, port: cluster.port), user: "rd_scram",
                                    database: "postgres", sslMode: .disable)
        guard case .failure(let refused) = try driver.connect(gone) else {
            Issue.record("connected to a stopped server")
            return
        }
        #expect(refused.kind == .connectionLost)
    }

    @Test func aFastShutdownEndsIdleSessionsWith57P01() throws {
        let cluster = try PostgresCluster()
        let driver = try LoopDriver()
        let connection = try driver.open(cluster.settings("rd_scram"))
        var closed: PostgresError?
        connection.onClose = { closed = $0 }
        cluster.stop()
        driver.run { closed != nil }
        #expect(closed?.sqlState == "57P01")
        #expect(closed?.isUnavailable == true)
    }
}
