@testable import API
import Clock
import Crypto
import EventLoop
import HTTP
import JSON
import Relaydeck
import Testing

/// `app-integrity.md#get-a-challenge`: `POST /v1/attest/challenge`, no credential, no body,
/// 20 an hour for each client address; also with App Attest off.
@Suite struct ChallengeRouteTests {
    @Test func givesAChallengeForFiveMinutesAlsoWithTheCheckOff() throws {
        let api = try APIHarness()
        let answer = try api.send("POST", "/v1/attest/challenge")
        #expect(answer.status == 200)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        let json = try answer.json()
        let challenge = try #require(json["challenge"]?.stringValue)
        #expect(challenge.utf8.count == 43)
        #expect(Base64.decode(challenge)?.count == 32)
        #expect(answer.text == #"{"challenge":"\#(challenge)","expires_in":300}"#)
        #expect(api.handler.context.attestBook.count == 1)
        // Each is new.
        let other = try api.send("POST", "/v1/attest/challenge").json()["challenge"]?.stringValue
        #expect(other != challenge)
    }

    @Test func aBodyIsIgnoredAndOtherMethodsAreRefused() throws {
        let api = try APIHarness()
        #expect(try api.send("POST", "/v1/attest/challenge", body: "not json").status == 200)
        let get = try api.send("GET", "/v1/attest/challenge")
        #expect(get.status == 405)
        #expect(get.header("Allow") == "POST")
    }

    @Test func needsTheAppCodeWhenItIsOn() throws {
        let secret = Array("12345678901234567890".utf8)
        var configuration = APIConfiguration()
        configuration.appCodeSecret = secret
        let api = try APIHarness(configuration: configuration)
        let missing = try api.send("POST", "/v1/attest/challenge")
        #expect(missing.status == 401)
        #expect(missing.text == errorBody("app_code_invalid", "The app code is missing or wrong."))
        #expect(try api.send("POST", "/v1/attest/challenge", [("X-App-Code", "00000000")]).status == 401)
        let code = TOTP.code(secret: secret, unixTime: api.clock.wallMillis / 1000)
        #expect(try api.send("POST", "/v1/attest/challenge", [("X-App-Code", code)]).status == 200)
        // A refused request gives out no challenge.
        #expect(api.handler.context.attestBook.count == 1)
    }

    @Test func twentyAnHourForEachAddress() throws {
        let api = try APIHarness()
        for _ in 0..<20 {
            #expect(try api.send("POST", "/v1/attest/challenge").status == 200)
        }
        let limited = try api.send("POST", "/v1/attest/challenge")
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "180")
        #expect(limited.text.contains(#""code":"rate_limited""#))
        // Another address has its own allowance; account creation has its own limit.
        #expect(try api.send("POST", "/v1/attest/challenge", peer: .ip(bytes: [198, 51, 100, 7], port: 1)).status == 200)
        #expect(try api.send("POST", "/v1/accounts", body: "{}").status == 201)
        api.advanceLoop(seconds: 180)
        #expect(try api.send("POST", "/v1/attest/challenge").status == 200)
    }

    @Test func theLimitIsTheOperators() throws {
        var configuration = APIConfiguration()
        configuration.challengesPerHour = 2
        let api = try APIHarness(configuration: configuration)
        #expect(try api.send("POST", "/v1/attest/challenge").status == 200)
        #expect(try api.send("POST", "/v1/attest/challenge").status == 200)
        let limited = try api.send("POST", "/v1/attest/challenge")
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "1800")
    }

    @Test func theBookForgetsAChallengeOnUseAndAfterFiveMinutes() {
        let book = ChallengeBook(capacity: 2)
        book.add("a", nowMillis: 0)
        #expect(book.redeem("a", nowMillis: 299_999))
        #expect(!book.redeem("a", nowMillis: 1))
        book.add("b", nowMillis: 0)
        #expect(!book.redeem("b", nowMillis: 300_000))
        #expect(book.count == 0)
        #expect(!book.redeem("never given", nowMillis: 0))
    }

    @Test func aFullBookRefusesUntilChallengesExpire() throws {
        let book = ChallengeBook(capacity: 2)
        let random = SystemRandom()
        #expect(book.issue(random: random, nowMillis: 0) != nil)
        #expect(book.issue(random: random, nowMillis: 0) != nil)
        #expect(book.issue(random: random, nowMillis: 1000) == nil)
        #expect(book.issue(random: random, nowMillis: 301_000) != nil)
        #expect(book.count == 1)
    }
}

extension APIContext {
    /// App Attest's book in memory, which a server on SQLite keeps.
    var attestBook: ChallengeBook { challenges as! ChallengeBook }
}
