#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Postgres
import Testing
import TestSupport

/// Runs a test's loop: turns until a result is in, 30 s at most (a bound against a hang,
/// not a measure: nothing asserts how long anything took).
final class LoopDriver {
    let loop: EventLoop

    init() throws {
        // A written socket whose peer is gone must give EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)
        loop = try EventLoop()
    }

    func run(until done: () -> Bool) {
        loop.run(until: done, within: .seconds(30))
    }

    /// The result `start` hands to its callback, waited for on the loop.
    func wait<T>(_ start: (@escaping (T) -> Void) -> Void) throws -> T {
        var result: T?
        start { result = $0 }
        run { result != nil }
        return try #require(result, "no result within 30 s")
    }

    func connect(_ settings: PostgresSettings, limits: PostgresLimits = PostgresLimits()) throws -> Result<PostgresConnection, PostgresError> {
        let connector = try PostgresConnector(settings: settings, limits: limits, loop: loop)
        return try wait { connector.connect(completion: $0) }
    }

    /// A connection that must be made.
    func open(_ settings: PostgresSettings, limits: PostgresLimits = PostgresLimits()) throws -> PostgresConnection {
        try connect(settings, limits: limits).get()
    }

    func run(_ connection: PostgresConnection, _ statements: [PostgresQuery]) throws -> Result<BatchResult, PostgresError> {
        try wait { connection.run(statements, completion: $0) }
    }

    func query(_ connection: PostgresConnection, _ sql: String, _ values: [PostgresValue] = []) throws -> Result<QueryResult, PostgresError> {
        try wait { connection.query(sql, values, completion: $0) }
    }
}

extension PostgresCluster {
    /// Settings for `user` over loopback TCP, with the role's password.
    func settings(_ user: String, host: String = "127.0.0.1", sslMode: SSLMode = .disable, rootCert: String? = nil,
                  password: String? = nil) -> PostgresSettings {
        PostgresSettings(endpoint: .tcp(host: host, port: port), user: user, password: password ?? Self.passwords[user],
                         database: "postgres", sslMode: sslMode, sslRootCert: rootCert)
    }
}
