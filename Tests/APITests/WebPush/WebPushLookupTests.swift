@testable import API
import Crypto
import EventLoop
import HTTPTestSupport
import Relaydeck
import SQLite
import Testing
import TestSupport

/// `PUT /v1/web-push/subscriptions/{id}` held while its endpoint's name is looked up
/// (`Pending`), through a real loopback server: the loop goes on meanwhile, and what happens
/// during the lookup (the credential deleted, the client gone, the time up, the write lock
/// held elsewhere) ends the request as it should, with nothing stored that should not be.
@Suite struct WebPushLookupTests {
    private let directory = TemporaryDirectory()
    private let names = NameTable()
    static let host = "updates.push.example.net"

    private func server(storePath: String? = nil) throws -> (APIServer, String) {
        let api = try APIServer(storePath: storePath)
        names.addresses[Self.host] = [IPAddress("93.184.215.14")!]
        names.held.insert(Self.host)
        api.handler.context.pushHostCheck = names.check
        return (api, try api.accountToken())
    }

    private func putRequest(token: String, id: String = "wps_laptop", endpoint: String = "https://\(host)/wpush/v2/abc") throws -> String {
        let p256dh = Base64.encode(try P256.PrivateKey().publicKey, urlSafe: true, padded: false)
        let auth = Base64.encode(Array(1...16), urlSafe: true, padded: false)
        let body = #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#
        return "PUT /v1/web-push/subscriptions/\(id) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    private func stored(_ api: APIServer, token: String) -> String? {
        let client = api.loopback.connect()
        api.get(client, "/v1/web-push/subscriptions", token: token)
        return api.loopback.response(client)?.bodyText
    }

    @Test func theLoopGoesOnWhileANameIsLookedUpAndTheSubscriptionIsStoredAfter() throws {
        let (api, token) = try server()
        let client = api.loopback.connect()
        client.send(try putRequest(token: token))
        api.loopback.pump(rounds: 20)
        #expect(!client.hasCompleteResponse)
        #expect(names.asked == [Self.host])
        // Reads, writes and /health of others are answered meanwhile.
        let other = api.loopback.connect()
        other.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(api.loopback.response(other)?.status == 200)
        #expect(stored(api, token: token) == #"{"subscriptions":[]}"#)
        let writer = api.loopback.connect()
        writer.send("POST /v1/keys HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: 15\r\n\r\n{\"label\":\"Zed\"}")
        #expect(api.loopback.response(writer)?.status == 201)

        names.release(Self.host)
        let answer = try #require(api.loopback.response(client))
        #expect(answer.status == 200)
        #expect(answer.bodyText.hasPrefix(#"{"id":"wps_laptop","endpoint":"https://updates.push.example.net/wpush/v2/abc""#))
        #expect(stored(api, token: token)?.contains("wps_laptop") == true)
        #expect(api.handler.context.pushHostLookups.count == 0)
        let record = try #require(api.records.first { $0.route == "/v1/web-push/subscriptions/{subscription_id}" })
        #expect(record.status == 200 && record.parked)
    }

    @Test func anAccountDeletedDuringTheLookupGets401AndNothingIsStored() async throws {
        let (api, token) = try server()
        let account = api.loopback.connect()
        api.get(account, "/v1/account", token: token)
        let accountID = String(try #require(api.loopback.response(account)?.bodyText.split(separator: "\"").dropFirst(3).first))
        let client = api.loopback.connect()
        client.send(try putRequest(token: token))
        api.loopback.pump(rounds: 20)
        let deleter = api.loopback.connect()
        deleter.send("DELETE /v1/account HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n")
        #expect(api.loopback.response(deleter)?.status == 204)
        names.release(Self.host)
        let answer = try #require(api.loopback.response(client))
        #expect(answer.status == 401)
        #expect(answer.bodyText == #"{"error":{"code":"unauthorized","message":"The credential is missing or wrong."}}"#)
        #expect(accountID.hasPrefix("acc_"))
        #expect(try await api.handler.context.services.webPush.list(accountID: accountID).isEmpty)
    }

    @Test func aLookupPastItsTimeIs503AndItsLateAnswerStoresNothing() throws {
        let (api, token) = try server()
        let client = api.loopback.connect()
        client.send(try putRequest(token: token))
        api.loopback.pump(rounds: 20)
        api.loopback.advance(by: .milliseconds(9_900))
        #expect(!client.hasCompleteResponse)
        api.loopback.advance(by: .milliseconds(200))
        let answer = try #require(api.loopback.response(client))
        #expect(answer.status == 503)
        #expect(answer.header("retry-after") == "5")
        // The lookup's thread still runs: its place is taken until it ends.
        #expect(api.handler.context.pushHostLookups.count == 1)
        names.release(Self.host)
        api.loopback.pump(rounds: 20)
        #expect(api.handler.context.pushHostLookups.count == 0)
        #expect(stored(api, token: token) == #"{"subscriptions":[]}"#)
    }

    @Test func aClientGoneDuringTheLookupLeavesNothingStored() throws {
        let (api, token) = try server()
        let client = api.loopback.connect()
        client.send(try putRequest(token: token))
        api.loopback.pump(rounds: 20)
        client.close()
        api.loopback.pump(rounds: 20)
        names.release(Self.host)
        api.loopback.pump(rounds: 20)
        #expect(stored(api, token: token) == #"{"subscriptions":[]}"#)
        #expect(api.records.contains { $0.route == "/v1/web-push/subscriptions/{subscription_id}" && $0.ending == .clientWentAway })
    }

    @Test func anAccountHasTwoLookupsAtOnceAndAThirdIs429() throws {
        let (api, token) = try server()
        let first = api.loopback.connect()
        first.send(try putRequest(token: token, id: "wps_1"))
        let second = api.loopback.connect()
        second.send(try putRequest(token: token, id: "wps_2"))
        api.loopback.pump(rounds: 20)
        let third = api.loopback.connect()
        third.send(try putRequest(token: token, id: "wps_3"))
        let refused = try #require(api.loopback.response(third))
        #expect(refused.status == 429)
        #expect(refused.header("retry-after") == "1")
        // Another account is not held up by the first one's lookups.
        let stranger = try api.accountToken()
        let theirs = api.loopback.connect()
        theirs.send(try putRequest(token: stranger, id: "wps_x", endpoint: "https://\(Self.host)/other"))
        api.loopback.pump(rounds: 20)
        #expect(!theirs.hasCompleteResponse)
        names.release(Self.host)
        #expect(api.loopback.response(first)?.status == 200)
        #expect(api.loopback.response(second)?.status == 200)
        #expect(api.loopback.response(theirs)?.status == 200)
        #expect(api.handler.context.pushHostLookups.count == 0)
    }

    @Test func theRestWaitsForAWriteLockHeldByAnotherProcess() throws {
        let path = directory.file("relaydeck.db")
        let (api, token) = try server(storePath: path)
        let client = api.loopback.connect()
        client.send(try putRequest(token: token))
        api.loopback.pump(rounds: 20)
        let holder = try Database(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        names.release(Self.host)
        api.loopback.pump(rounds: 20)
        #expect(!client.hasCompleteResponse)
        try holder.execute("COMMIT")
        api.loopback.advance(by: .milliseconds(50))
        #expect(api.loopback.response(client)?.status == 200)
        #expect(stored(api, token: token)?.contains("wps_laptop") == true)
    }
}

@Suite struct PushHostLookupsTests {
    @Test func theServerHas32PlacesAndEachAccount2AndAnEndedLookupFreesItsPlace() throws {
        let lookups = PushHostLookups()
        for index in 0..<16 {
            try lookups.admit("acc_\(index)")
            try lookups.admit("acc_\(index)")
        }
        #expect(lookups.count == 32)
        do {
            try lookups.admit("acc_new")
            Issue.record("a 33rd lookup was admitted")
        } catch {
            #expect(error.status == 503 && error.headers.first?.value == "1")
        }
        do {
            try lookups.admit("acc_0")
            Issue.record("a third lookup of one account was admitted")
        } catch {
            #expect(error.status == 429)
        }
        lookups.release("acc_3")
        try lookups.admit("acc_new")
        #expect(lookups.count == 32)
    }
}
