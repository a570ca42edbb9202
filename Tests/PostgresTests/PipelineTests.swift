import EventLoop
import Testing
@testable import Postgres

/// How answers are matched to a batch's statements, by messages alone (no socket).
@Suite struct PipelineTests {
    var prepared = PreparedStatements(capacity: 8)
    var pipeline = Pipeline(maxResultBytes: 1 << 20)
    var answered: [Result<BatchResult, PostgresError>] = []

    mutating func send(_ sqls: [String]) {
        let statements = sqls.map { sql -> Pipeline.Statement in
            switch prepared.plan(sql) {
            case .bind: return Pipeline.Statement(sql: sql, isCommit: PostgresQuery(sql).isCommit, parsedName: nil, columns: prepared.columns(sql))
            case .parse(let name): return Pipeline.Statement(sql: sql, isCommit: PostgresQuery(sql).isCommit, parsedName: name)
            }
        }
        pipeline.append(Pipeline.Batch(statements: statements, deadline: Instant(nanoseconds: 0), completion: { _ in }))
    }

    mutating func receive(_ messages: [BackendMessage]) throws {
        for message in messages {
            if let done = try pipeline.receive(message, prepared: &prepared) { answered.append(done.result) }
        }
    }

    static let int8Column = ColumnDescription(name: "n", typeOID: 20)
    static func row(_ value: UInt8) -> BackendMessage { .dataRow([0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, value]) }
    static let error = BackendMessage.error(ServerNotice(severity: "ERROR", sqlState: "23505", message: "duplicate key", constraint: "t_pkey"))

    @Test mutating func aStatementIsParsedOnceThenOnlyBound() throws {
        send(["SELECT 1 AS n"])
        try receive([.parseComplete, .parameterDescription, .rowDescription([Self.int8Column]), .bindComplete, Self.row(1),
                     .commandComplete(tag: "SELECT 1"), .readyForQuery(.idle)])
        #expect(prepared.plan("SELECT 1 AS n") == .bind(name: "rd1"))
        send(["SELECT 1 AS n"])
        // No description this time: the cached one reads the row.
        try receive([.bindComplete, Self.row(7), .commandComplete(tag: "SELECT 1"), .readyForQuery(.idle)])
        let result = try answered[1].get().result(0)
        #expect(try result.rows.map { try $0.int64("n") } == [7])
        #expect(result.rowsAffected == 1)
    }

    @Test mutating func anErrorSkipsTheRestOfItsBatchAndFreesTheirNames() throws {
        send(["INSERT a", "INSERT b", "INSERT c"])
        try receive([.parseComplete, .parameterDescription, .noData, .bindComplete, .commandComplete(tag: "INSERT 0 1"),
                     .parseComplete, .parameterDescription, .noData, .bindComplete, Self.error, .readyForQuery(.idle)])
        let batch = try answered[0].get()
        #expect(try batch.result(0).commandTag == "INSERT 0 1")
        #expect(throws: PostgresError(.server, "duplicate key", sqlState: "23505", constraint: "t_pkey", sql: "INSERT b")) {
            try batch.result(1)
        }
        #expect(throws: PostgresError(.skipped, "an earlier statement of its batch failed")) { try batch.result(2) }
        #expect(batch.firstError?.meaning == .constraint)
        // The first stays prepared; the failed and the skipped ones parse again.
        #expect(prepared.plan("INSERT a") == .bind(name: "rd1"))
        #expect(prepared.plan("INSERT b") == .parse(name: "rd4"))
        #expect(prepared.plan("INSERT c") == .parse(name: "rd5"))
    }

    @Test mutating func aTextWaitingForItsFirstParseRunsUnnamedMeanwhile() throws {
        send(["SELECT 1 AS n", "SELECT 1 AS n"])
        #expect(pipeline.batches[0].statements.map(\.parsedName) == ["rd1", ""])
    }

    @Test mutating func aCommitAnsweredWithRollbackIsAnError() throws {
        send(["COMMIT"])
        try receive([.parseComplete, .parameterDescription, .noData, .bindComplete, .commandComplete(tag: "ROLLBACK"), .readyForQuery(.idle)])
        #expect(throws: PostgresError(.server, "the transaction was rolled back, as a statement in it had failed", sqlState: "25P02",
                                      sql: "COMMIT")) {
            try answered[0].get().result(0)
        }
    }

    @Test mutating func anErrorAfterTheLastStatementFailsTheBatchWhole() throws {
        send(["INSERT a"])
        try receive([.parseComplete, .parameterDescription, .noData, .bindComplete, .commandComplete(tag: "INSERT 0 1"), Self.error,
                     .readyForQuery(.idle)])
        #expect(throws: PostgresError(.server, "duplicate key", sqlState: "23505", constraint: "t_pkey")) { try answered[0].get() }
    }

    @Test mutating func answersThatFitNoStatementBreakTheExchange() throws {
        #expect(throws: PostgresError(.protocolViolation, "the server answered a batch that was never sent")) {
            try receive([.readyForQuery(.idle)])
        }
        send(["SELECT 1 AS n"])
        #expect(throws: PostgresError(.protocolViolation, "a row before its description")) {
            try receive([.parseComplete, .bindComplete, Self.row(1)])
        }
    }

    @Test mutating func aResultOverTheBoundBreaksTheExchange() throws {
        pipeline = Pipeline(maxResultBytes: 30)
        send(["SELECT n"])
        try receive([.parseComplete, .parameterDescription, .rowDescription([Self.int8Column]), .bindComplete, Self.row(1), Self.row(2)])
        #expect(throws: PostgresError(.protocolViolation, "a result of more than 30 bytes, over this client's limit", sql: "SELECT n")) {
            try receive([Self.row(3)])
        }
    }
}
