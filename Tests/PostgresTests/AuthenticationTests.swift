#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Postgres

/// Each method of `pg_hba.conf` against the real server, over loopback TCP and the Unix
/// socket, and a wrong password.
@Suite struct AuthenticationTests {
    let cluster = PostgresCluster.shared

    func whoAmI(_ settings: PostgresSettings) throws -> String {
        let driver = try LoopDriver()
        let connection = try driver.open(settings)
        defer { connection.close() }
        let row = try #require(try driver.query(connection, "SELECT current_user::text AS name").get().rows.first)
        return try row.text("name")
    }

    @Test(arguments: ["rd_scram", "rd_md5", "rd_plain", "rd_trust", "rd_admin"])
    func eachMethodLogsIn(_ user: String) throws {
        #expect(try whoAmI(cluster.settings(user)) == user)
    }

    @Test func theUnixSocketConnects() throws {
        let settings = PostgresSettings(endpoint: .unix(directory: cluster.directory, port: cluster.port), user: "rd_scram",
                                        database: "postgres", sslMode: .disable)
        #expect(try whoAmI(settings) == "rd_scram")
    }

    @Test(arguments: ["rd_scram", "rd_md5", "rd_plain"])
    func aWrongPasswordIsRefusedWithoutThePasswordInTheError(_ user: String) throws {
        let driver = try LoopDriver()
        let result = try driver.connect(cluster.settings(user, password: "wrong-hunter2"))
        guard case .failure(let error) = result else {
            Issue.record("connected with a wrong password")
            return
        }
        #expect(error.kind == .authentication)
        #expect(error.sqlState == "28P01")
        #expect(error.message == "password authentication failed for user \"\(user)\"")
        #expect(error.meaning == .unavailable(reconnect: true))
        #expect(!error.description.contains("hunter2"))
    }

    @Test func noPasswordWhereOneIsAskedIsRefusedByTheClient() throws {
        let driver = try LoopDriver()
        var settings = cluster.settings("rd_scram")
        settings.password = nil
        guard case .failure(let error) = try driver.connect(settings) else {
            Issue.record("connected without a password")
            return
        }
        #expect(error == PostgresError(.authentication, "the server asks for a password and the settings give none"))
    }

    @Test func aDatabaseThatDoesNotExist() throws {
        let driver = try LoopDriver()
        var settings = cluster.settings("rd_scram")
        settings.database = "no_such_db"
        guard case .failure(let error) = try driver.connect(settings) else {
            Issue.record("connected to a database that does not exist")
            return
        }
        #expect(error.sqlState == "3D000")
        #expect(error.isUnavailable)
    }

    @Test func aPortNothingListensOnIsAConnectionError() throws {
        let driver = try LoopDriver()
        let (held, port) = closedLoopbackPort()
        defer { close(held) }
        let settings = PostgresSettings(endpoint: .tcp(host: "127.0.0.1", port: port), user: "u", sslMode: .disable)
        guard case .failure(let error) = try driver.connect(settings) else {
            Issue.record("connected to a closed port")
            return
        }
        #expect(error.kind == .connectionLost)
        #expect(error.message.contains("Connection refused"), "\(error)")
    }
}
