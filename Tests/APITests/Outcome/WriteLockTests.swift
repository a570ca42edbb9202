@testable import API
import Clock
import HTTP
import HTTPTestSupport
import JSON
import Relaydeck
import SQLite
import Testing
import TestSupport

/// A write lock held by another process: writes wait on a timer, everything else goes on.
@Suite struct WriteLockTests {
    private let directory = TemporaryDirectory()

    private func lockHolder(_ path: String) throws -> Database {
        let other = try Database(path: path)
        try other.execute("BEGIN IMMEDIATE")
        return other
    }

    @Test func aWriteWaitsForTheLockWhileReadsGoOn() throws {
        let path = directory.file("relaydeck.db")
        let api = try APIServer(storePath: path)
        let token = try api.accountToken()
        let holder = try lockHolder(path)

        let writer = api.loopback.connect()
        let body = #"{"label":"Cursor"}"#
        writer.send("POST /v1/keys HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        api.loopback.pump(rounds: 20)
        #expect(!writer.hasCompleteResponse)

        let reader = api.loopback.connect()
        api.get(reader, "/v1/keys", token: token)
        #expect(api.loopback.response(reader)?.bodyText == #"{"keys":[]}"#)
        reader.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(api.loopback.response(reader)?.status == 200)

        try holder.execute("COMMIT")
        // The next try comes on the loop's timer, at most 50 ms later.
        api.loopback.advance(by: .milliseconds(50))
        let created = api.loopback.response(writer)
        #expect(created?.status == 201)
        #expect(api.records.last?.parked == true)
        #expect(api.records.last?.status == 201)
    }

    @Test func aWriteThatNeverGetsTheLockIs503AfterFiveSeconds() throws {
        let path = directory.file("relaydeck.db")
        let api = try APIServer(storePath: path)
        let token = try api.accountToken()
        let holder = try lockHolder(path)
        defer { try? holder.execute("ROLLBACK") }

        let writer = api.loopback.connect()
        writer.send("DELETE /v1/account HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n")
        api.loopback.pump(rounds: 20)
        api.loopback.advance(by: .milliseconds(4_900))
        #expect(!writer.hasCompleteResponse)
        api.loopback.advance(by: .milliseconds(200))
        let answer = api.loopback.response(writer)
        #expect(answer?.status == 503)
        #expect(answer?.header("Retry-After") == "1")
        #expect(answer?.bodyText == #"{"error":{"code":"unavailable","message":"The store is unavailable. Try again in 1 seconds."}}"#)
        // Nothing was deleted: the account still works once the lock is gone.
        try holder.execute("ROLLBACK")
        let reader = api.loopback.connect()
        api.get(reader, "/v1/account", token: token)
        #expect(api.loopback.response(reader)?.status == 200)
    }

    /// `/mcp` answers in JSON-RPC also when the server fails around the call: the 503 of a
    /// lock that never came is a JSON-RPC error with the request's ID, never the REST body.
    @Test func anMCPCallThatNeverGetsTheLockIsAJSONRPCErrorWithItsID() throws {
        let path = directory.file("relaydeck.db")
        let api = try APIServer(storePath: path)
        let secret = try api.keySecret(token: try api.accountToken())
        let holder = try lockHolder(path)
        defer { try? holder.execute("ROLLBACK") }

        let body = #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_task","arguments":{"title":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        let agent = api.loopback.connect()
        agent.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(secret)\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                   + "Mcp-Method: tools/call\r\nMcp-Name: create_task\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        api.loopback.pump(rounds: 20)
        api.loopback.advance(by: .milliseconds(5_100))
        let answer = try #require(api.loopback.response(agent))
        #expect(answer.status == 503)
        #expect(answer.header("Retry-After") == "1")
        let message = try JSONParser.parse(answer.body)
        #expect(message["jsonrpc"]?.stringValue == "2.0")
        #expect(message["id"]?.int64Value == 7)
        #expect(message["error"]?["code"]?.int64Value == -32603)
        #expect(message["error"]?["message"]?.stringValue == "The store is unavailable. Try again in 1 seconds.")
        #expect(api.records.last?.code == "unavailable")
    }

    /// Events wait for the COMMIT of the request's transaction.
    @Test func changesAreAnnouncedOnlyAfterTheRequestCommitted() throws {
        let path = directory.file("relaydeck.db")
        let api = try APIServer(storePath: path)
        let token = try api.accountToken()
        var names: [String] = []
        var committedWhenSeen: [Bool] = []
        api.handler.context.services.hub.subscribe { change in
            names.append(change.event.name)
            committedWhenSeen.append(!((try? api.store.read { $0.isInTransaction }) ?? true))
        }
        let client = api.loopback.connect()
        let body = #"{"label":"Cursor"}"#
        client.send("POST /v1/keys HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(api.loopback.response(client)?.status == 201)
        #expect(names == ["key.created"])
        #expect(committedWhenSeen == [true])
    }

    @Test func aLockedWriteThatClientAbandonsIsForgotten() throws {
        let path = directory.file("relaydeck.db")
        let api = try APIServer(storePath: path)
        let token = try api.accountToken()
        let holder = try lockHolder(path)
        defer { try? holder.execute("ROLLBACK") }
        var writer: TestClient? = api.loopback.connect()
        writer?.send("DELETE /v1/account HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n")
        api.loopback.pump(rounds: 20)
        let before = api.records.count
        writer = nil
        api.loopback.pump { api.records.count > before }
        #expect(api.records.last?.ending == .clientWentAway)
        try holder.execute("ROLLBACK")
        api.loopback.advance(by: .seconds(6))
        let reader = api.loopback.connect()
        api.get(reader, "/v1/account", token: token)
        #expect(api.loopback.response(reader)?.status == 200)
    }
}
