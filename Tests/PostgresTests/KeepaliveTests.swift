#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
import TestSupport
@testable import Postgres
import Transports

/// TCP keepalive on a connection to a real PostgreSQL: on by default with the client's times
/// (a listening node's idle connection, dropped silently, is noticed), libpq's keywords
/// taking their place, and off with `keepalives=0`; read back from the socket itself.
@Suite struct KeepaliveTests {
    /// The socket's keepalive options: on, idle, interval, count.
    static func options(_ connection: PostgresConnection) throws -> [Int32] {
        let fd = try #require(connection.transport?.fd)
        return try [
            Socket.getOption(fd, SOL_SOCKET, SO_KEEPALIVE),
            Socket.getOption(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE),
            Socket.getOption(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL),
            Socket.getOption(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT),
        ]
    }

    @Test func aConnectionProbesAfterThirtyIdleSecondsEveryTenAndGivesUpAfterThree() throws {
        let driver = try LoopDriver()
        let connection = try driver.open(PostgresCluster.shared.settings("rd_scram"))
        defer { connection.close() }
        #expect(try Self.options(connection) == [1, 30, 10, 3])
        #expect(try driver.query(connection, "SELECT 1 AS n").get().rows[0].int64("n") == 1)
    }

    @Test func libpqsKeywordsSetTheTimesAndKeepalivesZeroTurnsItOff() throws {
        let driver = try LoopDriver()
        let base = PostgresCluster.shared.settings("rd_scram")
        let url = "postgres://rd_scram:\(base.password ?? "")@127.0.0.1:\(PostgresCluster.shared.port)/postgres?sslmode=disable"
        let tuned = try driver.open(try PostgresSettings.parse(url + "&keepalives_idle=5&keepalives_interval=2&keepalives_count=4"))
        defer { tuned.close() }
        #expect(try Self.options(tuned) == [1, 5, 2, 4])
        let off = try driver.open(try PostgresSettings.parse(url + "&keepalives=0"))
        defer { off.close() }
        #expect(try Self.options(off).first == 0)
    }
}
