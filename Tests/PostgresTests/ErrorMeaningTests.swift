import Testing
@testable import Postgres

/// Which SQLSTATEs mean "unavailable", "reconnect", "run it again" or a defect, and what of
/// the server's words an error keeps.
@Suite struct ErrorMeaningTests {
    @Test(arguments: [
        ("57P01", PostgresErrorMeaning.unavailable(reconnect: true)),
        ("57P02", .unavailable(reconnect: true)),
        ("57P03", .unavailable(reconnect: true)),
        ("08006", .unavailable(reconnect: true)),
        ("08001", .unavailable(reconnect: true)),
        ("25006", .unavailable(reconnect: true)),
        ("28P01", .unavailable(reconnect: true)),
        ("3D000", .unavailable(reconnect: true)),
        ("53300", .unavailable(reconnect: false)),
        ("53100", .unavailable(reconnect: false)),
        ("58030", .unavailable(reconnect: false)),
        ("57014", .unavailable(reconnect: false)),
        ("40001", .retryable),
        ("40P01", .retryable),
        ("23505", .constraint),
        ("23503", .constraint),
        ("08P01", .defect(reconnect: false)),
        ("42601", .defect(reconnect: false)),
        ("22P02", .defect(reconnect: false)),
        ("XX000", .defect(reconnect: false)),
    ])
    func sqlStates(_ state: String, _ meaning: PostgresErrorMeaning) {
        #expect(PostgresError(.server, "m", sqlState: state).meaning == meaning)
    }

    @Test func failuresOfTheConnectionItself() {
        #expect(PostgresError(.connectionLost, "m").meaning == .unavailable(reconnect: true))
        #expect(PostgresError(.timedOut, "m").meaning == .unavailable(reconnect: true))
        #expect(PostgresError(.tls, "m").isUnavailable)
        #expect(PostgresError(.protocolViolation, "m").meaning == .defect(reconnect: true))
        #expect(PostgresError(.mismatch, "m").meaning == .defect(reconnect: false))
        #expect(PostgresError(.skipped, "m").meaning == .skipped)
        #expect(PostgresError(.busy, "m").meaning == .unavailable(reconnect: false))
    }

    @Test func aDataExceptionsMessageLosesTheValueItQuotes() throws {
        var reader = MessageReader(Array("SERROR\0VERROR\0C22P02\0Minvalid input syntax for type bigint: \"secret-value\"\0Dmore\0\0".utf8))
        let error = try ServerNotice.parse(&reader).error
        #expect(error == PostgresError(.server, "invalid input syntax for type bigint: (the value is not shown)", sqlState: "22P02"))
    }

    @Test func theDetailOfAViolationIsNotKept() throws {
        var reader = MessageReader(Array(("SERROR\0VERROR\0C23505\0Mduplicate key value violates unique constraint \"t_pkey\"\0"
            + "DKey (email)=(bob@example.com) already exists.\0st\0nt_pkey\0\0").utf8))
        let error = try ServerNotice.parse(&reader).error.about("INSERT INTO t VALUES ($1)")
        #expect(error.constraint == "t_pkey")
        #expect(!error.description.contains("bob@"))
        #expect(error.description
            == "PostgreSQL error 23505 (duplicate key value violates unique constraint \"t_pkey\") in: INSERT INTO t VALUES ($1)")
    }
}
