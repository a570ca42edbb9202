@testable import API
import Clock
import HTTP
import HTTPTestSupport
import Relaydeck
import Testing

/// `inbox.md#read-the-inbox`: `GET /v1/inbox?wait=` over real sockets.
@Suite struct InboxWaitTests {
    /// Posts a message from the account to `keyID` and returns the answer.
    private func post(_ api: APIServer, token: String, keyID: String, text: String) -> TestResponse? {
        let client = api.loopback.connect()
        let body = #"{"key_id":"\#(keyID)","text":"\#(text)"}"#
        client.send("POST /v1/messages HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return api.loopback.response(client)
    }

    @Test func aWaitingReadWakesAsSoonAsAMessageIsPosted() throws {
        let api = try APIServer()
        let token = try api.accountToken()
        let secret = try api.keySecret(token: token)
        let keyID = try api.keyID(secret: secret)
        let waiter = api.loopback.connect()
        api.get(waiter, "/v1/inbox?wait=50", token: secret)
        api.loopback.pump(rounds: 5)
        #expect(!waiter.hasCompleteResponse && api.handler.waitingCount == 1)

        let started = api.loopback.clock.now
        #expect(post(api, token: token, keyID: keyID, text: "Stop and rebase first.")?.status == 201)
        let answer = try #require(api.loopback.response(waiter))
        // No timer ran: the wake-up came from the commit, not from a polling interval.
        #expect(api.loopback.clock.now == started)
        #expect(answer.status == 200)
        #expect(answer.bodyText.contains(#""text":"Stop and rebase first.""#) && answer.bodyText.hasSuffix(#""unread":0}"#))
        #expect(api.records.last?.ending == .answered)
    }

    @Test func ofSeveralWaitersThatMarkReadOneGetsTheItemAndTheOthersWaitOn() throws {
        let api = try APIServer()
        let token = try api.accountToken()
        let secret = try api.keySecret(token: token)
        let keyID = try api.keyID(secret: secret)
        let waiters = (0..<3).map { _ in api.loopback.connect() }
        for waiter in waiters { api.get(waiter, "/v1/inbox?wait=30", token: secret) }
        api.loopback.pump(rounds: 10)
        #expect(api.handler.waitingCount == 3)

        #expect(post(api, token: token, keyID: keyID, text: "one")?.status == 201)
        api.loopback.pump(rounds: 20)
        let answered = waiters.filter(\.hasCompleteResponse)
        #expect(answered.count == 1)
        #expect(api.handler.waitingCount == 2)
        #expect(answered.first?.takeResponse()?.bodyText.contains(#""text":"one""#) == true)

        // The others end empty when their time is up.
        api.loopback.advance(by: .seconds(31))
        for waiter in waiters where waiter !== answered.first {
            #expect(api.loopback.response(waiter)?.bodyText == #"{"items":[],"unread":0}"#)
        }
    }
}
