import Testing
import TestSupport
@testable import Postgres

/// TLS to the real server: `verify-full` against the test CA, a name the certificate does
/// not carry, `require`, and SCRAM with channel binding.
@Suite struct TLSConnectionTests {
    let cluster = PostgresCluster.shared

    /// Whether the server sees this session as TLS (`pg_stat_ssl`).
    func serverSeesTLS(_ driver: LoopDriver, _ connection: PostgresConnection) throws -> Bool {
        let rows = try driver.query(connection, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").get().rows
        return try #require(rows.first).bool("ssl")
    }

    @Test func verifyFullConnectsToTheNameTheCertificateCarries() throws {
        let driver = try LoopDriver()
        let connection = try driver.open(cluster.settings("rd_scram", host: "localhost", sslMode: .verifyFull, rootCert: cluster.caFile))
        defer { connection.close() }
        #expect(connection.isTLS)
        #expect(try serverSeesTLS(driver, connection))
    }

    @Test func verifyFullRefusesAnAddressTheCertificateDoesNotName() throws {
        let driver = try LoopDriver()
        let result = try driver.connect(cluster.settings("rd_scram", host: "127.0.0.1", sslMode: .verifyFull, rootCert: cluster.caFile))
        guard case .failure(let error) = result else {
            Issue.record("connected to an address the certificate does not name")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.message.hasPrefix("certificate verification failed: IP address mismatch"), "\(error)")
    }

    @Test func verifyCATakesTheAddressWhenTheChainIsGood() throws {
        let driver = try LoopDriver()
        let connection = try driver.open(cluster.settings("rd_scram", host: "127.0.0.1", sslMode: .verifyCA, rootCert: cluster.caFile))
        defer { connection.close() }
        #expect(connection.isTLS)
    }

    @Test func verifyFullWithTheSystemsCAsRefusesTheTestCA() throws {
        let driver = try LoopDriver()
        let result = try driver.connect(cluster.settings("rd_scram", host: "localhost", sslMode: .verifyFull))
        guard case .failure(let error) = result else {
            Issue.record("a certificate of the test CA passed the system's CAs")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.message.hasPrefix("certificate verification failed:"), "\(error)")
    }

    @Test(arguments: [SSLMode.require, .prefer])
    func requireAndPreferEncryptWithoutChecking(_ mode: SSLMode) throws {
        let driver = try LoopDriver()
        let connection = try driver.open(cluster.settings("rd_scram", host: "127.0.0.1", sslMode: mode))
        defer { connection.close() }
        #expect(try serverSeesTLS(driver, connection))
    }

    @Test func aLargeResultOverTLSComesWhole() throws {
        // Megabytes in hundreds of records, two reads an event: the result is taken in many
        // turns, each stopping with the socket not drained.
        var limits = PostgresLimits()
        limits.readsPerEvent = 2
        let driver = try LoopDriver()
        let connection = try driver.open(cluster.settings("rd_scram", host: "localhost", sslMode: .verifyFull, rootCert: cluster.caFile),
                                         limits: limits)
        defer { connection.close() }
        let rows = try driver.query(connection, "SELECT repeat('x', 100000) AS t FROM generate_series(1, 60)").get().rows
        #expect(rows.count == 60)
        #expect(try rows.allSatisfy { try $0.text("t").utf8.count == 100_000 })
    }

    @Test func scramOverTLSBindsTheChannel() throws {
        // The server offers SCRAM-SHA-256-PLUS over TLS; a client that sent `y` there would be
        // refused by it ("SCRAM channel binding negotiation error"), so logging in proves `p=`.
        let driver = try LoopDriver()
        let connection = try driver.open(cluster.settings("rd_scram", host: "localhost", sslMode: .verifyFull, rootCert: cluster.caFile))
        defer { connection.close() }
        #expect(try driver.query(connection, "SELECT 1 AS one").get().rows.count == 1)
    }
}
