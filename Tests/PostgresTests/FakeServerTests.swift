import EventLoop
import Testing
import TestSupport
@testable import Postgres

/// What a broken or hostile server does, from a fake one on the test's loop: each ends in a
/// typed error within the client's bounds (a length, a byte count, a deadline), never in a
/// hang, a crash or memory without end.
@Suite struct FakeServerTests {
    let driver: LoopDriver

    init() throws {
        driver = try LoopDriver()
    }

    func settings(_ server: FakeServer, sslMode: SSLMode = .disable) -> PostgresSettings {
        PostgresSettings(endpoint: .tcp(host: "127.0.0.1", port: server.port), user: "u", password: "pw", sslMode: sslMode)
    }

    /// Short deadlines for the tests whose server never answers; the size bounds are small
    /// so a flood reaches them quickly.
    static var tightLimits: PostgresLimits {
        var limits = PostgresLimits()
        limits.connectTimeout = .milliseconds(300)
        limits.queryTimeout = .milliseconds(300)
        limits.maxResultBytes = 1 << 20
        return limits
    }

    /// A server that logs in at once and answers each batch with `answer`.
    func loggedIn(_ answer: @escaping (FakePeer) -> Void) throws -> FakeServer {
        try FakeServer(loop: driver.loop) { peer, event in
            switch event {
            case .startup: peer.send(Backend.loggedIn)
            case .message(UInt8(ascii: "S"), _): answer(peer)
            default: break
            }
        }
    }

    func failure(_ result: Result<BatchResult, PostgresError>) -> PostgresError? {
        if case .failure(let error) = result { return error }
        Issue.record("the batch did not fail")
        return nil
    }

    @Test func aRowThatSaysItHolds2GBIsRefusedFromItsHeader() throws {
        let server = try loggedIn { peer in
            peer.send(Backend.parseComplete + Backend.noParameters + Backend.rowDescription + Backend.bindComplete
                + [UInt8(ascii: "D"), 0x7F, 0xFF, 0xFF, 0xFF])
            // The body never comes: the client must not wait for it.
        }
        let connection = try driver.open(settings(server))
        let error = failure(try driver.run(connection, [PostgresQuery("SELECT n")]))
        #expect(error == PostgresError(.protocolViolation, "a message of type 'D' of 2147483643 bytes, over this client's limit of 16777216"))
        #expect(error?.needsNewConnection == true)
        #expect(!connection.isOpen)
    }

    @Test func rowsWithoutEndStopAtTheResultBound() throws {
        var sentRows = 0
        let server = try loggedIn { peer in
            peer.send(Backend.parseComplete + Backend.noParameters + Backend.rowDescription + Backend.bindComplete)
            let block = (0..<1000).flatMap { _ in Backend.dataRow(42) }
            peer.refill = {
                sentRows += 1000
                return block
            }
        }
        let connection = try driver.open(settings(server), limits: Self.tightLimits)
        let error = failure(try driver.run(connection, [PostgresQuery("SELECT n")]))
        #expect(error == PostgresError(.protocolViolation, "a result of more than 1048576 bytes, over this client's limit", sql: "SELECT n"))
        // It stopped at the bound (a DataRow of one int8 is 18 bytes), not at the end of the flood.
        #expect(sentRows >= (1 << 20) / 18)
        #expect(!connection.isOpen)
    }

    @Test func aServerThatNeverAnswersABatchTimesOut() throws {
        let server = try loggedIn { _ in }
        let connection = try driver.open(settings(server), limits: Self.tightLimits)
        var closed: PostgresError?
        connection.onClose = { closed = $0 }
        let error = failure(try driver.run(connection, [PostgresQuery("SELECT 1")]))
        #expect(error == PostgresError(.timedOut, "no answer to a batch within 300 ms"))
        #expect(error?.meaning == .unavailable(reconnect: true))
        #expect(closed == error)
    }

    /// The deadline's timer is set for the first batch and left there once it is answered: the
    /// next batch still has its own whole deadline, counted from when it was sent.
    @Test func aBatchSentAfterAnAnsweredOneHasItsOwnWholeDeadline() throws {
        var batches = 0
        let server = try loggedIn { peer in
            batches += 1
            guard batches == 1 else { return }
            peer.send(Backend.parseComplete + Backend.noParameters + Backend.rowDescription + Backend.bindComplete
                + Backend.dataRow(1) + Backend.message("C", Backend.cString("SELECT 1")) + Backend.readyForQuery)
        }
        let connection = try driver.open(settings(server), limits: Self.tightLimits)
        #expect(try driver.run(connection, [PostgresQuery("SELECT n")]).get().result(0).rows.count == 1)
        let pause = driver.loop.now + .milliseconds(200)
        driver.run { driver.loop.now >= pause }
        let sent = driver.loop.now
        #expect(failure(try driver.run(connection, [PostgresQuery("SELECT n")])) == PostgresError(.timedOut, "no answer to a batch within 300 ms"))
        #expect(driver.loop.now - sent >= .milliseconds(300))
    }

    @Test func aFloodOfNoticesCannotHoldTheLoopPastTheDeadline() throws {
        let server = try loggedIn { peer in
            let notice = Backend.message("N", [UInt8(ascii: "S")] + Backend.cString("NOTICE") + [UInt8(ascii: "M")] + Backend.cString("spam") + [0])
            let block = (0..<2000).flatMap { _ in notice }
            peer.refill = { block }
        }
        let connection = try driver.open(settings(server), limits: Self.tightLimits)
        #expect(failure(try driver.run(connection, [PostgresQuery("SELECT 1")])) == PostgresError(.timedOut, "no answer to a batch within 300 ms"))
    }

    @Test func aRowTrickledAByteAtATimeTimesOut() throws {
        var trickle: LoopTimer?
        let server = try loggedIn { [driver] peer in
            var rest = Backend.parseComplete + Backend.noParameters + Backend.rowDescription + Backend.bindComplete + Backend.dataRow(1)
            func next() {
                guard !rest.isEmpty else { return }
                peer.send([rest.removeFirst()])
                trickle = driver.loop.schedule(after: .milliseconds(20)) { next() }
            }
            next()
        }
        defer { if let trickle { driver.loop.cancel(trickle) } }
        let connection = try driver.open(settings(server), limits: Self.tightLimits)
        #expect(failure(try driver.run(connection, [PostgresQuery("SELECT n")])) == PostgresError(.timedOut, "no answer to a batch within 300 ms"))
    }

    @Test func aServerSilentAtStartupTimesOut() throws {
        let server = try FakeServer(loop: driver.loop) { _, _ in }
        guard case .failure(let error) = try driver.connect(settings(server), limits: Self.tightLimits) else {
            Issue.record("connected to a silent server")
            return
        }
        #expect(error == PostgresError(.timedOut, "no connection to 127.0.0.1:\(server.port) within 300 ms"))
    }

    @Test func aServerWithoutTLSIsRefusedWhenTLSIsRequired() throws {
        let server = try FakeServer(loop: driver.loop) { peer, event in
            if case .sslRequest = event { peer.send([UInt8(ascii: "N")]) }
            if case .startup = event { peer.send(Backend.loggedIn) }
        }
        guard case .failure(let error) = try driver.connect(settings(server, sslMode: .require)) else {
            Issue.record("connected in plain text under sslmode=require")
            return
        }
        #expect(error == PostgresError(.tls, "the server offers no TLS, and sslmode=require requires it"))
        // `prefer` goes on in plain text.
        let connection = try driver.open(settings(server, sslMode: .prefer))
        #expect(!connection.isTLS)
        connection.close()
    }

    @Test func bytesAfterTheTLSAnswerAreNeverTakenAsTheServers() throws {
        // CVE-2021-23222: someone in the middle answers `S` and adds plaintext; it must go to
        // TLS (which refuses it), never to the protocol.
        let server = try FakeServer(loop: driver.loop) { peer, event in
            if case .sslRequest = event { peer.send([UInt8(ascii: "S")] + Backend.loggedIn) }
        }
        guard case .failure(let error) = try driver.connect(settings(server, sslMode: .require)) else {
            Issue.record("the injected bytes logged the client in")
            return
        }
        #expect(error.kind == .tls)
    }

    @Test func anUnknownAnswerToSSLRequestIsAProtocolViolation() throws {
        let server = try FakeServer(loop: driver.loop) { peer, event in
            if case .sslRequest = event { peer.send([UInt8(ascii: "E")]) }
        }
        guard case .failure(let error) = try driver.connect(settings(server, sslMode: .prefer)) else {
            Issue.record("connected")
            return
        }
        #expect(error == PostgresError(.protocolViolation, "the server answered SSLRequest with 'E'"))
    }

    @Test func aServerThatSkipsSCRAMsProofIsRefused() throws {
        let server = try FakeServer(loop: driver.loop) { peer, event in
            switch event {
            case .startup: peer.send(Backend.message("R", Backend.int32(10) + Backend.cString("SCRAM-SHA-256") + [0]))
            case .message(UInt8(ascii: "p"), _): peer.send(Backend.loggedIn)
            default: break
            }
        }
        guard case .failure(let error) = try driver.connect(settings(server)) else {
            Issue.record("logged in by a server that proved nothing")
            return
        }
        #expect(error == PostgresError(.authentication, "the server ended SCRAM without proving it knows the password"))
    }

    @Test func aHugeSCRAMIterationCountIsRefused() throws {
        let server = try FakeServer(loop: driver.loop) { peer, event in
            switch event {
            case .startup: peer.send(Backend.message("R", Backend.int32(10) + Backend.cString("SCRAM-SHA-256") + [0]))
            case .message(UInt8(ascii: "p"), let body):
                // The client's nonce, extended, and a billion iterations.
                let text = String(decoding: body, as: UTF8.self)
                let nonce = text.split(separator: "r=").last.map(String.init) ?? ""
                peer.send(Backend.message("R", Backend.int32(11) + Array("r=\(nonce)x,s=QUJD,i=1000000000".utf8)))
            default: break
            }
        }
        guard case .failure(let error) = try driver.connect(settings(server)) else {
            Issue.record("connected")
            return
        }
        #expect(error == PostgresError(.authentication, "the server's SCRAM message asks for 1000000000 iterations; this client does at most 100000"))
    }

    @Test func kerberosIsRefusedByName() throws {
        let server = try FakeServer(loop: driver.loop) { peer, event in
            if case .startup = event { peer.send(Backend.message("R", Backend.int32(7))) }
        }
        guard case .failure(let error) = try driver.connect(settings(server)) else {
            Issue.record("connected")
            return
        }
        #expect(error == PostgresError(.authentication,
                                       "the server asks for GSSAPI, which this client does not speak; use scram-sha-256 in pg_hba.conf"))
    }

    @Test func aNotificationOverItsBoundClosesTheConnection() throws {
        let server = try loggedIn { _ in }
        let connection = try driver.open(settings(server))
        var closed: PostgresError?
        connection.onClose = { closed = $0 }
        server.peer?.send(Backend.message("A", Backend.int32(1) + Backend.cString("c") + Backend.cString(String(repeating: "x", count: 9_000))))
        driver.run { closed != nil }
        #expect(closed == PostgresError(.protocolViolation, "a message of type 'A' of 9007 bytes, over this client's limit of 8070"))
    }

    @Test func batchesPastTheBoundAreRefusedAtOnceAndTheOthersGoOn() throws {
        let server = try loggedIn { _ in }
        var limits = PostgresLimits()
        limits.maxBatchesInFlight = 2
        let connection = try driver.open(settings(server), limits: limits)
        var results: [Result<BatchResult, PostgresError>] = []
        for _ in 0..<3 { connection.run([PostgresQuery("SELECT 1")]) { results.append($0) } }
        driver.run { !results.isEmpty }
        #expect(results.count == 1)
        #expect(failure(results[0]) == PostgresError(.busy, "2 batches wait for answers already"))
        #expect(connection.isOpen && connection.batchesInFlight == 2)
        connection.close()
    }

    @Test func aServerThatClosesMidBatchFailsItAsLost() throws {
        let server = try loggedIn { peer in
            peer.send(Backend.parseComplete + Backend.noParameters + Backend.rowDescription + Backend.bindComplete + Backend.dataRow(1))
            peer.close()
        }
        let connection = try driver.open(settings(server))
        #expect(failure(try driver.run(connection, [PostgresQuery("SELECT n")])) == PostgresError(.connectionLost, "the server closed the connection"))
    }
}
