#if canImport(Glibc)
import Glibc
import HTTPTestSupport
#endif
import EventLoop
import Testing
@testable import HTTP

/// The attack: a client pipelines requests with large answers and never reads. The server
/// must stop handling and reading at its bound, and still answer everything, in order, once
/// the client reads.
@Suite struct BackpressureTests {
    static let bound = 256 * 1024
    /// Room for the head of the answer that crosses the bound.
    static let headSlack = 1024

    /// A body that names its request in every byte run, so a lost, repeated or reordered
    /// piece shows.
    static func answer(for path: some StringProtocol, size: Int) -> [UInt8] {
        let unit = Array(path.utf8) + [UInt8(ascii: ";")]
        return (0..<size).map { unit[$0 % unit.count] }
    }

    static func requests(_ paths: [String]) -> [UInt8] {
        Array(paths.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined().utf8)
    }

    /// Sends what the client's socket takes and pumps, `rounds` times.
    static func push(_ unsent: inout ArraySlice<UInt8>, from client: TestClient, through harness: ServerHarness, rounds: Int) {
        for _ in 0..<rounds {
            unsent = unsent.dropFirst(client.sendSome(unsent))
            harness.pump(rounds: 1)
        }
    }

    @Test func aClientThatNeverReadsIsNotReadPastTheBoundAndGetsEveryAnswerInOrderOnceItReads() throws {
        let answerSize = 20 * 1024
        let harness = try ServerHarness { $0.maxResponseBacklog = Self.bound }
        harness.handler.onRequest = { request, responder in
            responder.respond(.json(200, Self.answer(for: request.head.path, size: answerSize)))
        }
        let client = TestClient(port: harness.port, receiveBuffer: 4096)
        harness.pump(rounds: 3)
        let paths = (0..<400).map { "/\($0)" }
        var unsent = Self.requests(paths)[...]
        Self.push(&unsent, from: client, through: harness, rounds: 100)

        let connection = try #require(harness.server.connections.first)
        let handled = harness.handler.seen.count
        // 400 answers are 8 MB: the server stopped far short of them, at its bound.
        #expect(handled < paths.count / 2)
        #expect(connection.queuedOutputBytes > Self.bound)
        #expect(connection.queuedOutputBytes <= Self.bound + answerSize + Self.headSlack)
        // More turns of the loop change nothing while the client does not read.
        Self.push(&unsent, from: client, through: harness, rounds: 50)
        #expect(harness.handler.seen.count == handled)

        var answers: [TestResponse] = []
        var largestBacklog = 0
        for _ in 0..<20_000 where answers.count < paths.count {
            unsent = unsent.dropFirst(client.sendSome(unsent))
            while let response = client.takeResponse() { answers.append(response) }
            harness.pump(rounds: 1)
            largestBacklog = max(largestBacklog, connection.queuedOutputBytes)
        }
        #expect(answers.count == paths.count)
        #expect(largestBacklog <= Self.bound + answerSize + Self.headSlack)
        #expect(harness.handler.seen.map { String($0.head.path) } == paths)
        for (path, response) in zip(paths, answers) {
            #expect(response.status == 200)
            #expect(response.body == Self.answer(for: path, size: answerSize), "answer to \(path)")
        }
    }

    @Test func oneAnswerLargerThanTheBoundGoesOutWholeBeforeTheNextRequestIsHandled() throws {
        let bigSize = 3 * 1024 * 1024
        let harness = try ServerHarness { $0.maxResponseBacklog = 64 * 1024 }
        harness.handler.onRequest = { request, responder in
            let size = request.head.path == "/big" ? bigSize : 100
            responder.respond(.json(200, Self.answer(for: request.head.path, size: size)))
        }
        let client = TestClient(port: harness.port, receiveBuffer: 4096)
        harness.pump(rounds: 3)
        client.send(Self.requests(["/big", "/a", "/b"]))
        harness.pump(rounds: 20)
        #expect(harness.handler.seen.map { String($0.head.path) } == ["/big"])

        var answers: [TestResponse] = []
        for _ in 0..<20_000 where answers.count < 3 {
            while let response = client.takeResponse() { answers.append(response) }
            harness.pump(rounds: 1)
        }
        #expect(answers.map(\.body) == [Self.answer(for: "/big", size: bigSize), Self.answer(for: "/a", size: 100),
                                         Self.answer(for: "/b", size: 100)])
        #expect(harness.handler.seen.map { String($0.head.path) } == ["/big", "/a", "/b"])
    }

    @Test func aClientPipeliningManyRequestsTakesTurnsWithTheOthers() throws {
        let harness = try ServerHarness()
        harness.handler.onRequest = { request, responder in
            responder.respond(.json(200, Array(request.head.path.utf8)))
        }
        let busy = harness.connect()
        let other = harness.connect()
        busy.send(Self.requests((0..<500).map { "/busy/\($0)" }))
        other.send(Self.requests(["/other"]))
        #expect(harness.response(other)?.bodyText == "/other")
        // The other client was served after at most a turn or two of the busy one.
        let position = try #require(harness.handler.seen.firstIndex { $0.head.path == "/other" })
        #expect(position <= 2 * HTTPConnection.requestsPerTurn)
        harness.pump { harness.handler.seen.count == 501 }
        var bodies: [String] = []
        for _ in 0..<500 {
            guard let response = harness.response(busy) else { break }
            bodies.append(response.bodyText)
        }
        #expect(bodies == (0..<500).map { "/busy/\($0)" })
    }
}
