@testable import API
import Clock
import Glibc
import HTTPTestSupport
import JSON
import Relaydeck
import Testing
import TestSupport

/// `GET /v1/events` over real sockets (`events.md`).
@Suite struct EventStreamTests {
    private let directory = TemporaryDirectory()

    private func open(_ api: APIServer, token: String) -> TestClient {
        let client = api.loopback.connect()
        api.get(client, "/v1/events", token: token)
        api.loopback.pump { client.peekText().contains("event: ready") }
        return client
    }

    /// The frames received so far after the head, taken.
    private func frames(_ client: TestClient) -> [String] {
        let text = client.takeText()
        let body = text.firstRange(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? text
        return body.split(separator: "\n\n", omittingEmptySubsequences: true).map(String.init)
    }

    private func post(_ api: APIServer, _ path: String, token: String, body: String) -> TestResponse? {
        let client = api.loopback.connect()
        client.send("POST \(path) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return api.loopback.response(client)
    }

    @Test func theStreamStartsWithReadyAndCarriesEachChangeOnce() throws {
        let api = try APIServer()
        let token = try api.accountToken()
        let stream = open(api, token: token)
        let head = stream.peekText()
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.contains("Content-Type: text/event-stream\r\n"))
        let ready = frames(stream)
        #expect(ready.count == 1)
        #expect(ready[0].hasPrefix("event: ready\ndata: {\"account_id\":\"acc_"))

        let created = post(api, "/v1/keys", token: token, body: #"{"label": "Cursor"}"#)
        let key = try JSONParser.parse(try #require(created).body)["key"]
        api.loopback.pump { stream.peekText().contains("key.created") }
        #expect(frames(stream) == ["event: key.created\ndata: {\"key\":\(try #require(key).description)}"])
    }

    @Test func anAPIKeyIsRefused() throws {
        let api = try APIServer()
        let token = try api.accountToken()
        let secret = try api.keySecret(token: token)
        let client = api.loopback.connect()
        api.get(client, "/v1/events", token: secret)
        #expect(api.loopback.response(client)?.status == 403)
    }

    @Test func anotherAccountsChangesNeverArrive() throws {
        let api = try APIServer()
        let mine = try api.accountToken()
        let theirs = try api.accountToken()
        let stream = open(api, token: mine)
        _ = frames(stream)
        _ = post(api, "/v1/keys", token: theirs, body: #"{"label": "Theirs"}"#)
        _ = post(api, "/v1/keys", token: mine, body: #"{"label": "Mine"}"#)
        api.loopback.pump { stream.peekText().contains("key.created") }
        let got = frames(stream)
        #expect(got.count == 1)
        #expect(got.first?.contains("\"label\":\"Mine\"") == true)
    }

    @Test func aPingFollowsTwentySecondsOfSilence() throws {
        let api = try APIServer()
        let stream = open(api, token: try api.accountToken())
        _ = frames(stream)
        api.loopback.advance(by: .seconds(19))
        #expect(frames(stream).isEmpty)
        api.loopback.advance(by: .seconds(2))
        api.loopback.pump { stream.peekText().contains(": ping") }
        #expect(frames(stream) == [": ping"])
    }

    @Test func theSeventeenthStreamOfAnAccountEndsTheOldest() throws {
        let api = try APIServer()
        let token = try api.accountToken()
        let streams = (0..<16).map { _ in open(api, token: token) }
        #expect(streams.allSatisfy { !$0.isClosed })
        let newest = open(api, token: token)
        api.loopback.pump { closed(streams[0]) }
        #expect(closed(streams[0]))
        #expect(streams[1...].allSatisfy { !closed($0) })
        #expect(!newest.isClosed)
    }

    @Test func deletingTheAccountSendsAccountDeletedThenEndsTheStream() throws {
        let api = try APIServer()
        let token = try api.accountToken()
        let stream = open(api, token: token)
        _ = frames(stream)
        let client = api.loopback.connect()
        client.send("DELETE /v1/account HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n")
        #expect(api.loopback.response(client)?.status == 204)
        api.loopback.pump { closed(stream) }
        #expect(frames(stream) == ["event: account.deleted\ndata: {}"])
        #expect(stream.isClosed)
    }

    @Test func aStoreThatIsAwayAtTheConnectIs503() throws {
        let api = try APIServer(storePath: directory.file("missing/relaydeck.db"))
        let client = api.loopback.connect()
        api.get(client, "/v1/events", token: "mca_" + String(repeating: "A", count: 43))
        let answer = api.loopback.response(client)
        #expect(answer?.status == 503)
        #expect(answer?.header("Retry-After") == "1")
    }

    @Test func aStoreLostWhileStreamingEndsTheStreams() throws {
        let folder = directory.file("store")
        #expect(mkdir(folder, 0o700) == 0)
        let api = try APIServer(storePath: folder + "/relaydeck.db")
        let stream = open(api, token: try api.accountToken())
        _ = frames(stream)
        api.store.close()
        #expect(rename(folder, folder + "-gone") == 0)
        api.wall.advance(millis: 2_000)
        api.loopback.advance(by: .seconds(21))
        api.loopback.pump { closed(stream) }
        #expect(closed(stream))
    }

    private func closed(_ client: TestClient) -> Bool {
        client.poll()
        return client.isClosed
    }
}
